import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StateUpdateError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { copyState } from "../state/state-copy.js";
import { applyUpdates, undoApplied } from "./commit.js";
import type { EngineGraph, RunPosition, TaskResult } from "./engine-types.js";

const State = defineState({
  a: z.number().default(0),
  b: z.array(z.number()).default([]),
  total: reducer(z.number().default(0), (x: number, y: number) => {
    if (y < 0) throw new Error("negative");
    return x + y;
  }),
  later: z.number().optional(),
});
const graph = { state: State } as unknown as EngineGraph;

function position(state: Record<string, unknown>, ownsState: boolean): RunPosition {
  return {
    state,
    step: 3,
    tasks: [
      { id: "3:0", name: "one", payload: null },
      { id: "3:1", name: "two", payload: null },
    ],
    known: new Map(),
    caches: new Map(),
    answers: {},
    ownsState,
  };
}

const done = (update: Record<string, unknown> | null): TaskResult => ({
  kind: "done",
  update,
  routes: null,
});

describe("applyUpdates", () => {
  it("writes a state the run does not own into a copy; `before` is the state itself", () => {
    const state = { a: 1, b: [1], total: 5 };
    const pos = position(state, false);
    const results = new Map([
      ["3:0", done({ a: 2, total: 1 })],
      ["3:1", done({ later: 7 })],
    ]);
    const applied = applyUpdates(graph, pos, results, null, 3);
    if (applied instanceof Promise) throw new Error("unexpected promise");
    expect(applied.state).toEqual({ a: 2, b: [1], total: 6, later: 7 });
    expect(applied.state).not.toBe(state);
    expect(state).toEqual({ a: 1, b: [1], total: 5 });
    expect(applied.before).toBe(state);
    expect(applied.kept).toBeNull();
  });

  it("writes the run's own state in place, keeps what it replaced, and can put it back", () => {
    const state: Record<string, unknown> = { a: 1, b: [1], total: 5 };
    copyState(state); // known to the copier before the writes
    const pos = position(state, true);
    const results = new Map([
      ["3:0", done({ a: 2, total: 1 })],
      ["3:1", done({ a: 3, later: 7 })],
    ]);
    const applied = applyUpdates(graph, pos, results, null, 3);
    if (applied instanceof Promise) throw new Error("unexpected promise");
    expect(applied.state).toBe(state);
    expect(state).toEqual({ a: 3, b: [1], total: 6, later: 7 });
    expect(applied.before).toEqual({ a: 1, total: 5 });
    expect(copyState(state)).toEqual({ a: 3, b: [1], total: 6, later: 7 });
    undoApplied(applied);
    expect(state).toEqual({ a: 1, b: [1], total: 5 });
    expect(Object.keys(state)).toEqual(["a", "b", "total"]);
    expect(copyState(state)).toEqual({ a: 1, b: [1], total: 5 });
  });

  it("puts the run's own state back when a later task's update fails", () => {
    const state: Record<string, unknown> = { a: 1, b: [1], total: 5 };
    const pos = position(state, true);
    const results = new Map([
      ["3:0", done({ a: 2, b: [2], later: 1 })],
      ["3:1", done({ total: -1 })],
    ]);
    let error: unknown;
    try {
      applyUpdates(graph, pos, results, null, 3);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StateUpdateError);
    expect((error as Error).message).toBe(
      'Reducer of state field "total" failed on the update of node "two": negative',
    );
    expect(pos.state).toBe(state);
    expect(state).toEqual({ a: 1, b: [1], total: 5 });
    expect(Object.keys(state)).toEqual(["a", "b", "total"]);
  });

  it("leaves the state as it is when no task wrote", () => {
    const state = { a: 1 };
    const applied = applyUpdates(
      graph,
      position(state, true),
      new Map([
        ["3:0", done(null)],
        ["3:1", done(null)],
      ]),
      null,
      3,
    );
    if (applied instanceof Promise) throw new Error("unexpected promise");
    expect(applied).toEqual({ state, before: state, kept: null });
  });
});
