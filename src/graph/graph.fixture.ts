/**
 * Shared setup of the Graph tests (graph*.test.ts): their state definition and a sleep.
 *
 * @module
 */
import { z } from "zod";
import { defineState, reducer } from "../state/define-state.js";

/** A counter, a log and a topic: the state most Graph tests run on. */
export const State = defineState({
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  topic: z.string().nullable().default(null),
});
/** {@link State}'s state type. */
export type S = typeof State.State;

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
