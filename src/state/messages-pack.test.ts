import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../chat/messages.js";
import type { JsonValue } from "../json/index.js";
import { defineState, messagesField, prepareUpdate } from "./define-state.js";
import { MESSAGE_KEYS, messagesCodec } from "./messages-codec.js";
import {
  PACKED_LAYOUT,
  PACKED_MESSAGE_TYPES,
  packMessages,
  unpackMessages,
} from "./messages-pack.js";

const j = (v: unknown) => v as JsonValue;

const every = [
  SystemMessage({ id: "s", content: "be brief" }),
  HumanMessage({ id: "h", content: "hi" }),
  HumanMessage({ id: "h2", content: [{ type: "text", text: "look" }] }),
  AIMessage({ id: "a1", content: "hello" }),
  AIMessage({
    id: "a2",
    refusal: "no",
    toolCalls: [
      { id: "c1", name: "t", arguments: {}, argumentsError: "bad JSON" },
      { id: "c2", name: "t", arguments: { n: 1 }, argumentsError: null },
    ],
    finishReason: "stop",
    usage: { inputTokens: 3, outputTokens: 4 },
  }),
  { ...AIMessage({ id: "a3", content: "x" }), responseMetadata: {} },
  AIMessage({ id: "a4", usage: { inputTokens: 1 }, responseMetadata: { model: "m" } }),
  ToolMessage({ id: "t1", content: "x", name: "t", toolCallId: "c2", arguments: { n: 2 } }),
  ToolMessage({ id: "t2" }),
];

describe("packMessages / unpackMessages", () => {
  it("packs each message as its type and values, trailing defaults left out", () => {
    expect(
      packMessages(
        j([
          HumanMessage({ id: "h", content: "hi" }),
          AIMessage({ id: "a", content: "hello" }),
          AIMessage({
            id: "b",
            toolCalls: [{ id: "c", name: "t", arguments: { q: 1 }, argumentsError: null }],
          }),
          { ...AIMessage({ id: "d", content: "x" }), responseMetadata: {} },
          ToolMessage({ id: "t", content: "ok", name: "t", toolCallId: "c" }),
        ]),
      ),
    ).toEqual([
      ["human", "h", "hi"],
      ["ai", "a", "hello"],
      ["ai", "b", null, null, [{ id: "c", name: "t", arguments: { q: 1 }, argumentsError: null }]],
      // An optional key that is present is kept, empty or not (and the defaults before it).
      ["ai", "d", "x", null, [], [], null, {}, {}],
      ["tool", "t", "ok", "t", "c"],
    ]);
  });

  it("gives back every message type key for key, in the schema's order, through JSON", () => {
    const packed = packMessages(j(every));
    expect(packed).not.toBeNull();
    const back = unpackMessages(JSON.parse(JSON.stringify(packed)));
    expect(JSON.stringify(back)).toBe(JSON.stringify(every));
    // Fresh defaults: no two messages share a list or an object.
    const [a, b] = unpackMessages(
      j([
        ["ai", "x"],
        ["ai", "y"],
      ]),
    ) as { toolCalls: unknown[] }[];
    expect(a!.toolCalls).not.toBe(b!.toolCalls);
  });

  it("names its layout: each packed type's keys in order (a snapshot keeps it)", () => {
    expect(PACKED_LAYOUT).toBe(
      "human:id,content|system:id,content|tool:id,content,name,toolCallId,arguments|" +
        "ai:id,content,refusal,toolCalls,reasoning,finishReason,usage,responseMetadata",
    );
  });

  it("writes out exactly the keys MESSAGE_KEYS gives each type it packs", () => {
    for (const type of PACKED_MESSAGE_TYPES) {
      const keys = MESSAGE_KEYS[type]!;
      const whole = unpackMessages(j([[type, ...keys.map((_, i) => `v${i}`)]]))[0]!;
      expect(Object.keys(whole as object)).toEqual(["type", ...keys.map(([k]) => k)]);
      expect(Object.values(whole as object)).toEqual([type, ...keys.map((_, i) => `v${i}`)]);
    }
  });

  it("makes each type whole at every length: the values given, then each key's default", () => {
    // (Some lengths take a shorter path, one literal each; every length must give the same.)
    const defaults = { null: null, list: [], object: {} } as const;
    for (const type of PACKED_MESSAGE_TYPES) {
      const keys = MESSAGE_KEYS[type]!;
      for (let n = 1; n <= keys.length + 1; n++) {
        const values = keys.slice(0, n - 1).map(([k]) => `${k} value`);
        const expected: Record<string, unknown> = { type };
        keys.forEach(([k, d], i) => {
          if (i < n - 1) expected[k] = values[i];
          else if (d !== "optional") expected[k] = defaults[d];
        });
        const [whole] = unpackMessages(j([[type, ...values]])) as Record<string, unknown>[];
        expect(Object.keys(whole!)).toEqual(Object.keys(expected));
        expect(whole).toEqual(expected);
      }
      expect(() => unpackMessages(j([[type, ...keys.map(() => 1), 1]]))).toThrow(
        new TypeError(`packed messages: item 0 has more values than a ${type} message has keys`),
      );
    }
    // The defaults are fresh at the short paths' lengths too.
    const [a, b] = unpackMessages(
      j([
        ["ai", "x", "hi"],
        ["ai", "y", "hi"],
      ]),
    ) as { toolCalls: unknown[]; reasoning: unknown[]; usage: object }[];
    expect(a!.toolCalls).not.toBe(b!.toolCalls);
    expect(a!.reasoning).not.toBe(b!.reasoning);
    expect(a!.usage).not.toBe(b!.usage);
  });

  it("packs a key that holds undefined as JSON has it: an optional one absent, any other not at all", () => {
    // (A run's own position keeps what a node wrote; a message list that packs an undefined
    // value is not JSON: the store refuses the snapshot.)
    const ai = AIMessage({ id: "a", content: "x" });
    expect(packMessages(j([{ ...ai, responseMetadata: undefined }]))).toEqual([["ai", "a", "x"]]);
    expect(packMessages(j([{ type: "human", id: undefined, content: "x" }]))).toBeNull();
    expect(packMessages(j([{ ...ai, usage: undefined }]))).toBeNull();
  });

  it("does not pack a list it could not give back key for key", () => {
    const human = HumanMessage({ id: "h", content: "hi" });
    const cases: unknown[] = [
      "not a list",
      [{ ...human, extra: 1 }],
      [{ id: "h", type: "human", content: "hi" }],
      [{ type: "human", id: "h" }],
      [{ type: "remove", id: "h" }],
      [{ type: "image", id: "h" }],
      [human, null],
      [human, ["human", "h"]],
    ];
    expect(cases.map((c) => packMessages(j(c)))).toEqual(cases.map(() => null));
  });

  it("throws a TypeError naming the item of a damaged packed list", () => {
    expect(() => unpackMessages(j({}))).toThrow(new TypeError("packed messages: not a list"));
    expect(() => unpackMessages(j([["human", "h"], { type: "human" }]))).toThrow(
      new TypeError("packed messages: item 1 is not a list"),
    );
    expect(() => unpackMessages(j([["remove", "h"]]))).toThrow(
      new TypeError("packed messages: item 0 has no known message type"),
    );
    // More values than the type has keys: not something packMessages wrote.
    for (const [item, type] of [
      [["human", "h", "hi", null], "human"],
      [["system", "s", "x", "y"], "system"],
      [["tool", "t", "x", "n", "c", {}, "more"], "tool"],
      [["ai", "a", "x", null, [], [], null, {}, {}, "more"], "ai"],
    ] as const) {
      expect(() => unpackMessages(j([["human", "ok"], item]))).toThrow(
        new TypeError(`packed messages: item 1 has more values than a ${type} message has keys`),
      );
    }
  });
});

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("packMessages against the event log", () => {
  it("a prepared list packs, and reads back as the messages codec's events fold to", () => {
    // What a messages field holds in a run (its updates prepared) is what a snapshot of the
    // run's position packs; a cold load must read back what a fold of the stored events gives.
    const State = defineState({ messages: messagesField() });
    const next = random(20);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const absent = Symbol("absent");
    const values: Record<string, readonly unknown[]> = {
      id: [absent, undefined, null, "m", "é😀\u2028"],
      content: [
        absent,
        undefined,
        null,
        "",
        "x",
        [],
        [{ type: "text", text: "t" }],
        [{ type: "image", data: "QUJD", mediaType: "image/png", cache: undefined }],
      ],
      refusal: [absent, null, "no"],
      toolCalls: [
        absent,
        [],
        [{ id: "c", name: "t" }],
        [{ id: "c", name: "t", arguments: { q: [1] }, argumentsError: "bad" }],
      ],
      reasoning: [absent, [], [{ type: "reasoning", text: "r", provider: "p", data: null }]],
      finishReason: [absent, null, "stop"],
      usage: [absent, {}, { inputTokens: 1 }, { inputTokens: undefined }, { extra: "x" }],
      responseMetadata: [absent, undefined, {}, { model: "m" }],
      name: [absent, null, "t"],
      toolCallId: [absent, null, "c"],
      arguments: [absent, null, {}, { a: 1 }],
    };
    for (let round = 0; round < 300; round++) {
      const list = Array.from({ length: 1 + Math.floor(next() * 4) }, () => {
        const type = pick(["human", "system", "ai", "tool"] as const);
        const m: Record<string, unknown> = { type };
        for (const [key] of MESSAGE_KEYS[type]!) {
          const v = pick(values[key]!);
          if (v !== absent) m[key] = v;
        }
        return m;
      });
      const prepared = prepareUpdate(State, { messages: list }, "n").messages as JsonValue[];
      const packed = packMessages(prepared);
      expect(packed).not.toBeNull();
      const fold = messagesCodec.decode(JSON.parse(JSON.stringify(messagesCodec.encode(prepared))));
      const read = unpackMessages(JSON.parse(JSON.stringify(packed)));
      expect(JSON.stringify(read)).toBe(JSON.stringify(fold));
      // (And the run's own view of the list is the same text.)
      expect(JSON.stringify(prepared)).toBe(JSON.stringify(fold));
    }
  });
});
