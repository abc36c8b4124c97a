import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "../chat/messages.js";
import type { JsonValue } from "../json/index.js";
import { MESSAGE_KEYS } from "./messages-codec.js";
import { PACKED_MESSAGE_TYPES, packMessages, unpackMessages } from "./messages-pack.js";

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

  it("writes out exactly the keys MESSAGE_KEYS gives each type it packs", () => {
    for (const type of PACKED_MESSAGE_TYPES) {
      const keys = MESSAGE_KEYS[type]!;
      const whole = unpackMessages(j([[type, ...keys.map((_, i) => `v${i}`)]]))[0]!;
      expect(Object.keys(whole as object)).toEqual(["type", ...keys.map(([k]) => k)]);
      expect(Object.values(whole as object)).toEqual([type, ...keys.map((_, i) => `v${i}`)]);
    }
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
