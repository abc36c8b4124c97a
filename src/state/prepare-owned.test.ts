/**
 * claimOwned: which prepared updates share nothing mutable with what their writer holds (so the
 * engine need not copy them again when the task ends).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AIMessage, HumanMessage } from "../chat/messages.js";
import { defineState } from "./define-state.js";
import { messagesField } from "./messages-field.js";
import { claimOwned, prepareUpdate } from "./prepare-update.js";
import { reducer } from "./reducer.js";
import { Replace } from "./replace.js";

const State = defineState({
  messages: messagesField(),
  label: z.string().nullable().default(null),
  any: z.any().optional(),
  list: reducer(z.array(z.number()).default([]), (a, b) => [...a, ...b], {
    prepare: (u: number[]) => u,
  }),
});

describe("claimOwned", () => {
  it("holds for plain messages (copied by the plain parse, ids given in copies) and primitives", () => {
    const call = { id: "c", name: "t", arguments: { q: "x" }, argumentsError: null };
    const ai = AIMessage({ toolCalls: [call] });
    const update = { messages: [HumanMessage({ content: "hi" }), ai], label: "x", any: 3 };
    const p = prepareUpdate(State, update, "n");
    expect(claimOwned(p)).toBe(true);
    // Claimed once.
    expect(claimOwned(p)).toBe(false);
    const messages = p.messages as Array<{ id: string | null; toolCalls?: unknown[] }>;
    expect(messages[0]!.id).toEqual(expect.any(String));
    expect(messages[1]!.id).toEqual(expect.any(String));
    expect(messages[1]!.id).not.toBe(messages[0]!.id);
    // The writer's messages keep their null ids: the ids are set on the copies.
    expect(update.messages.map((m) => m.id)).toEqual([null, null]);
    // Nothing of it is the writer's.
    expect(messages[1]).not.toBe(ai);
    expect(messages[1]!.toolCalls).not.toBe(ai.toolCalls);
    expect(messages[1]!.toolCalls![0]).not.toBe(ai.toolCalls[0]);
  });

  it("does not hold when a value may be the writer's own object", () => {
    const msg = HumanMessage({ content: "hi" });
    // z.any() keeps the object as it is.
    expect(claimOwned(prepareUpdate(State, { messages: [msg], any: { k: 1 } }, "n"))).toBe(false);
    // Content parts go through zod, not the plain parse.
    const parts = HumanMessage({ content: [{ type: "text", text: "hi" }] });
    expect(claimOwned(prepareUpdate(State, { messages: [parts] }, "n"))).toBe(false);
    // A reducer's own prepare may give back anything.
    expect(claimOwned(prepareUpdate(State, { list: [1] }, "n"))).toBe(false);
    expect(claimOwned(prepareUpdate(State, { label: Replace("x") }, "n"))).toBe(false);
    // A plain-object state keeps every value as written.
    expect(claimOwned(prepareUpdate(null, { messages: [msg] }, "n"))).toBe(false);
    expect(claimOwned(null)).toBe(false);
  });

  it("does not hold for an update when another was prepared after it", () => {
    const first = prepareUpdate(State, { label: "a" }, "n");
    const second = prepareUpdate(State, { label: "b" }, "m");
    expect(claimOwned(first)).toBe(false);
    expect(claimOwned(second)).toBe(true);
    expect(claimOwned({ messages: [] })).toBe(false);
  });
});
