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

describe("encodeUpdate / decodeUpdate: a list that keeps the items it held (extend)", () => {
  const image = { type: "image", data: "iVBORw0KGgo".repeat(200), mediaType: "image/png" };
  const m1 = { type: "human", id: "h1", content: [{ type: "text", text: "look" }, image] };
  const m2 = { type: "ai", id: "a1", content: "A lamp." };
  const c3 = { id: "c3", name: "lookup", arguments: { q: "x" }, argumentsError: null };
  const m3 = { type: "ai", id: "a2", content: null, toolCalls: [c3] };

  it("stores a plain-object graph's list as the items it adds and reads it back over the state", () => {
    const before = { messages: [m1, m2], toolCalls: [], step: 1 };
    // The update holds copies of the items (as a run's frozen update does), not the same objects.
    const update = {
      messages: [structuredClone(m1), structuredClone(m2), m3],
      toolCalls: [c3],
      step: 2,
    };
    const stored = encodeUpdate(null, update, before);
    expect(stored).toEqual({
      update: { messages: [m3], step: 2 },
      same: { toolCalls: ["messages", 2] },
      extend: { messages: 2 },
    });
    const read = JSON.parse(JSON.stringify(stored));
    const back = decodeUpdate(null, read.update, read.same, read.extend, before);
    expect(JSON.stringify(back)).toBe(JSON.stringify(update));
    expect(back).toEqual({ messages: [m1, m2, m3], toolCalls: [c3], step: 2 });
    // The state given to decode is not changed.
    expect(before.messages).toEqual([m1, m2]);
    // The same list again (nothing added) keeps them all and adds nothing.
    expect(encodeUpdate(null, { messages: [m1, m2] }, undefined, "n", before)).toEqual({
      update: { messages: [] },
      same: null,
      extend: { messages: 2 },
    });
  });

  it("stores the list whole when it does not keep every item the field held, as JSON with key order", () => {
    const before = { messages: [m1, m2], log: [] as unknown[] };
    const cases: unknown[] = [
      [m1, { ...m2, content: "Another lamp." }, m3], // an item changed
      [m2, m1, m3], // reordered
      [m1], // shorter
      [m1, { content: "A lamp.", type: "ai", id: "a1" }, m3], // same keys, another order
      [m1, { ...m2, extra: undefined }, m3], // a key JSON would drop
      "not a list",
    ];
    for (const messages of cases) {
      const stored = encodeUpdate(null, { messages }, undefined, "n", before);
      expect([stored.extend, stored.update.messages]).toEqual([null, messages]);
    }
    // An empty list held before, a Replace, and no base: stored whole.
    expect(encodeUpdate(null, { log: ["a"] }, before).extend).toBeNull();
    const replaced = Replace([m1, m2, m3]);
    expect(encodeUpdate(null, { messages: replaced }, before).update.messages).toEqual(replaced);
    expect(encodeUpdate(null, { messages: [m1, m2, m3] }).extend).toBeNull();
  });

  it("leaves out a part carried over unchanged (equal as JSON, key order included) in a single-task superstep", () => {
    const before = { chart: image, tags: ["a"] };
    const update = {
      chart: structuredClone(image),
      tags: ["a"],
      other: { ...image, mediaType: "image/jpeg" },
    };
    expect(encodeUpdate(null, update, before)).toEqual({
      update: { other: { ...image, mediaType: "image/jpeg" } },
      same: null,
      extend: null,
    });
    const reordered = { mediaType: "image/png", type: "image", data: image.data };
    expect(encodeUpdate(null, { chart: reordered }, before).update).toEqual({
      chart: reordered,
    });
    // Without the state before (a superstep of several tasks), it is kept.
    expect(encodeUpdate(null, { chart: image }).update).toEqual({ chart: image });
  });

  it("does not extend a field with a reducer or a codec", () => {
    const Declared = defineState({
      messages: messagesField(),
      items: z.array(z.string()).default([]),
      total: reducer(z.array(z.number()).default([]), (a: number[], b: number[]) => [...a, ...b]),
    });
    const before = {
      messages: [HumanMessage({ id: "h1", content: "hi" })],
      items: ["a"],
      total: [1],
    };
    const update = prepareUpdate(
      Declared,
      { messages: [HumanMessage({ id: "h2", content: "more" })], items: ["a", "b"], total: [1, 2] },
      "n",
    );
    const stored = encodeUpdate(Declared, update, before);
    expect([stored.extend, stored.update]).toEqual([
      { items: 1 },
      { messages: [{ type: "human", id: "h2", content: "more" }], items: ["b"], total: [1, 2] },
    ]);
    expect(decodeUpdate(Declared, stored.update, stored.same, stored.extend, before)).toEqual(
      update,
    );
  });

  it("raises when the state read back does not hold the items the update keeps (a damaged log)", () => {
    expect(() =>
      decodeUpdate(null, { messages: [m3] }, null, { messages: 2 }, { messages: [m1] }),
    ).toThrow(
      new Error(
        'the update\'s field "messages" keeps the first 2 items of the list the state held, but the state holds 1 item there',
      ),
    );
    expect(() => decodeUpdate(null, { messages: [m3] }, null, { messages: 2 })).toThrow(
      new Error(
        'the update\'s field "messages" keeps the first 2 items of the list the state held, but the state holds no list there',
      ),
    );
  });
});

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
      extend: null,
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
