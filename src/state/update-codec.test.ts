import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AIMessage, HumanMessage } from "../chat/messages.js";
import { ToolCallSchema } from "../chat/tool-call.js";
import { defineState, messagesField, prepareUpdate, reducer } from "./define-state.js";
import { Replace } from "./replace.js";
import { decodeUpdate, encodeUpdate } from "./update-codec.js";

const State = defineState({
  messages: messagesField(),
  toolCalls: z.array(ToolCallSchema).default([]),
  finalText: z.string().nullable().default(null),
  count: reducer(z.number().default(0), (a: number, b: number) => a + b),
});

const call = { id: "c1", name: "lookup", arguments: { q: "x" } };

describe("encodeUpdate / decodeUpdate", () => {
  it("stores a field that repeats a list of another field as where it is, and reads it back in order", () => {
    const ai = AIMessage({ id: "m1", toolCalls: [ToolCallSchema.parse(call)] });
    const update = prepareUpdate(
      State,
      { messages: [ai], toolCalls: ai.toolCalls, finalText: null },
      "think",
    );
    const stored = encodeUpdate(State, update);
    expect(stored).toEqual({
      update: {
        messages: [{ type: "ai", id: "m1", toolCalls: [call] }],
        finalText: null,
      },
      same: { toolCalls: ["messages", 0] },
    });
    const back = decodeUpdate(State, JSON.parse(JSON.stringify(stored.update)), stored.same);
    expect(JSON.stringify(back)).toBe(JSON.stringify(update));
    // The repeated value is a copy, not the same object.
    expect(back.toolCalls).not.toBe((back.messages as { toolCalls: unknown }[])[0]!.toolCalls);
  });

  it("keeps a field that differs from the list of the same name", () => {
    const ai = AIMessage({ id: "m1", toolCalls: [ToolCallSchema.parse(call)] });
    const other = ToolCallSchema.parse({ ...call, id: "c2" });
    const update = prepareUpdate(State, { messages: ai, toolCalls: [other] }, "think");
    const stored = encodeUpdate(State, update);
    expect(stored.same).toBeNull();
    expect(stored.update.toolCalls).toEqual([{ ...call, id: "c2", argumentsError: null }]);
    expect(decodeUpdate(State, stored.update, stored.same)).toEqual(update);
  });

  it("leaves out a write that sets a field without a reducer to the primitive, [] or {} it has", () => {
    const update = prepareUpdate(State, { finalText: null, count: 0, toolCalls: [] }, "n");
    const before = { messages: [], toolCalls: [], finalText: null, count: 0 };
    // finalText and toolCalls change nothing: left out. count has a reducer: kept.
    expect(encodeUpdate(State, update, before).update).toEqual({ count: 0 });
    // A list that is not empty now, or was not before, is kept.
    const call1 = ToolCallSchema.parse(call);
    expect(encodeUpdate(State, update, { ...before, toolCalls: [call1] }).update).toEqual({
      count: 0,
      toolCalls: [],
    });
    expect(encodeUpdate(State, update).update).toEqual({
      finalText: null,
      count: 0,
      toolCalls: [],
    });
  });

  it("stores a long text that repeats a key of the field before it as where it is", () => {
    const text = "x".repeat(48);
    const ai = AIMessage({ id: "m1", content: text });
    const update = prepareUpdate(State, { messages: [ai], finalText: text }, "think");
    const stored = encodeUpdate(State, update);
    expect(stored.same).toEqual({ finalText: ["messages", 0, "content"] });
    expect(JSON.stringify(decodeUpdate(State, stored.update, stored.same))).toBe(
      JSON.stringify(update),
    );
    // Shorter texts are kept as they are.
    const short = prepareUpdate(
      State,
      { messages: [AIMessage({ id: "m1", content: "x".repeat(47) })], finalText: "x".repeat(47) },
      "think",
    );
    expect(encodeUpdate(State, short).same).toBeNull();
  });

  it("stores a Replace as it is and uses a field's own codec", () => {
    const Custom = defineState({
      tags: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b], {
        codec: {
          encode: (u) => (u as string[]).join(","),
          decode: (s) => (s === "" ? [] : String(s).split(",")),
        },
      }),
    });
    const update = prepareUpdate(Custom, { tags: ["a", "b"] }, "n");
    expect(encodeUpdate(Custom, update).update).toEqual({ tags: "a,b" });
    expect(decodeUpdate(Custom, { tags: "a,b" }, null)).toEqual({ tags: ["a", "b"] });
    const replaced = prepareUpdate(State, { messages: Replace([HumanMessage({ id: "h" })]) }, "n");
    expect(encodeUpdate(State, replaced).update).toEqual(replaced);
    expect(decodeUpdate(State, encodeUpdate(State, replaced).update, null)).toEqual(replaced);
  });

  it("says which repeated field cannot be found in a damaged update", () => {
    expect(() => decodeUpdate(State, { finalText: null }, { toolCalls: ["messages", 0] })).toThrow(
      `the update's field "toolCalls" repeats messages.0.toolCalls, which is not in it`,
    );
  });
});
