import { describe, expect, it } from "vitest";
import { AgentState } from "../agents/agent-state.js";
import { messagesUpdateSchema } from "../state/add-messages.js";
import { lastParseWasPlain, safeParseTwin } from "../zod-cycles.js";
import { expectSameParse } from "./plain-parse.fixture.js";
import { plainMessagesUpdate, plainToolCalls } from "./plain-parse.js";

/** Check the plain parse against zod's: same result when it takes `v`; zod's refusal when it must not. */
function check(
  plain: (v: unknown) => unknown,
  schema: Parameters<typeof safeParseTwin>[0],
  v: unknown,
): "plain" | "zod" {
  const zod = schema.safeParse(v);
  const twin = safeParseTwin(schema, v);
  const twinPlain = lastParseWasPlain();
  const got = plain(v);
  expect(twin.success).toBe(zod.success);
  // safeParseTwin answered from the plain parse exactly when it takes the value (the schema
  // is the one registered: the public MessagesUpdateSchema is a lazy stand-in for it).
  expect(twinPlain).toBe(got !== undefined);
  if (got === undefined) return "zod";
  expect(zod.success, `zod refuses what the plain parse took: ${JSON.stringify(v)}`).toBe(true);
  expectSameParse(got, zod.data, v);
  expectSameParse(twin.data, zod.data, v);
  return "plain";
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ABSENT = Symbol("absent");
const SCALARS: unknown[] = [
  ABSENT,
  undefined,
  null,
  "",
  "x",
  0,
  -0,
  1.5,
  Number.NaN,
  Infinity,
  true,
];
const RECORDS: unknown[] = [
  ABSENT,
  undefined,
  null,
  {},
  { q: "item 1" },
  { n: 2, b: false, z: null, s: "" },
  { 2: "b", 1: "a", k: -0 },
  { a: { nested: 1 } },
  { a: [1] },
  { a: Number.NaN },
  { a: undefined },
  "text",
  [],
  Object.create(null),
  Object.assign(Object.create({ inherited: 1 }), { a: 1 }),
  JSON.parse('{"__proto__":{"x":1}}'),
  { constructor: "c" },
  Object.defineProperty({ a: 1 }, "hidden", { value: 2, enumerable: false }),
  { [Symbol("s")]: 1, a: 1 },
  new (class Args {
    a = 1;
  })(),
];
const CONTENTS: unknown[] = [
  ABSENT,
  undefined,
  null,
  "hello",
  "",
  [{ type: "text", text: "hi" }],
  [],
  7,
  {},
];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

function put(o: Record<string, unknown>, k: string, v: unknown): void {
  if (v !== ABSENT) o[k] = v;
}

function toolCallValue(r: () => number): unknown {
  if (r() < 0.05) return pick(r, [null, "call", [], 3]);
  const c: Record<string, unknown> = {};
  put(c, "id", r() < 0.9 ? `call_${Math.floor(r() * 10)}` : pick(r, SCALARS));
  put(c, "name", r() < 0.9 ? "lookup" : pick(r, SCALARS));
  put(c, "arguments", r() < 0.6 ? { q: "item" } : pick(r, RECORDS));
  if (r() < 0.3) put(c, "argumentsError", pick(r, SCALARS));
  if (r() < 0.03) c.extra = 1;
  return c;
}

function messageValue(r: () => number): unknown {
  if (r() < 0.03) return pick(r, [null, "m", [], 1, { type: "remove", id: "a" }]);
  const type = pick(r, ["system", "human", "ai", "tool", "ai", "ai", "tool", "other", ABSENT]);
  const m: Record<string, unknown> = {};
  put(m, "type", type);
  put(m, "id", r() < 0.6 ? pick(r, [null, "id-1", ABSENT]) : pick(r, SCALARS));
  put(m, "content", pick(r, CONTENTS));
  if (type === "ai") {
    if (r() < 0.5) put(m, "refusal", pick(r, SCALARS));
    const calls = r();
    if (calls < 0.5)
      m.toolCalls = Array.from({ length: Math.floor(r() * 3) }, () => toolCallValue(r));
    else if (calls < 0.55) m.toolCalls = pick(r, [null, {}, "x"]);
    if (r() < 0.5) put(m, "reasoning", pick(r, [[], ABSENT, undefined, null, [{ type: "x" }]]));
    if (r() < 0.5) put(m, "finishReason", pick(r, SCALARS));
    if (r() < 0.6)
      put(
        m,
        "usage",
        pick(r, [
          {},
          undefined,
          null,
          { inputTokens: 3, outputTokens: 4 },
          { totalTokens: undefined },
          { inputTokens: Number.NaN },
          { raw: {} },
          { other: 1 },
          { reasoningTokens: 1, cachedInputTokens: 0, inputTokens: 2 },
          "u",
        ]),
      );
    if (r() < 0.4) put(m, "responseMetadata", pick(r, RECORDS));
  }
  if (type === "tool") {
    if (r() < 0.7) put(m, "name", pick(r, SCALARS));
    if (r() < 0.7) put(m, "toolCallId", pick(r, SCALARS));
    if (r() < 0.5) put(m, "arguments", pick(r, RECORDS));
  }
  if (r() < 0.03) m.extra = "x";
  if (r() < 0.02) return Object.assign(Object.create({ inherited: true }), m);
  return m;
}

describe("plainMessagesUpdate", () => {
  it("gives what the schema gives for every value it takes, and takes only values the schema takes", () => {
    const r = rng(20261206);
    const counts = { plain: 0, zod: 0 };
    for (let i = 0; i < 6000; i++) {
      const v =
        r() < 0.5
          ? messageValue(r)
          : Array.from({ length: Math.floor(r() * 4) }, () => messageValue(r));
      counts[check(plainMessagesUpdate, messagesUpdateSchema(), v)]++;
    }
    // Both paths are exercised, each by many values.
    expect(counts.plain).toBeGreaterThan(1000);
    expect(counts.zod).toBeGreaterThan(1000);
  });

  it("takes an agent turn's messages, with defaults filled in fresh", () => {
    const ai = { type: "ai", id: null, toolCalls: [{ id: "c", name: "t", arguments: { q: "x" } }] };
    const out = plainMessagesUpdate([ai, ai]) as unknown[];
    expect(out).toEqual([
      {
        type: "ai",
        id: null,
        content: null,
        refusal: null,
        toolCalls: [{ id: "c", name: "t", arguments: { q: "x" }, argumentsError: null }],
        reasoning: [],
        finishReason: null,
        usage: {},
      },
      out[0],
    ]);
    expect(out[0]).not.toBe(out[1]);
    expect(check(plainMessagesUpdate, messagesUpdateSchema(), [ai, ai])).toBe("plain");
    const human = { type: "human", id: "h", content: "hi" };
    expect(plainMessagesUpdate(human)).toEqual(human);
    expect(plainMessagesUpdate(human)).not.toBe(human);
  });

  it("leaves to zod a RemoveMessage, content parts, reasoning parts and nested arguments", () => {
    const holey: unknown[] = new Array(3);
    holey[0] = { type: "human" };
    holey[2] = { type: "human" };
    for (const v of [
      [{ type: "remove", id: "a" }],
      { type: "human", id: null, content: [{ type: "text", text: "hi" }] },
      { type: "ai", reasoning: [{ type: "reasoning", text: "t", provider: "p", data: null }] },
      { type: "ai", toolCalls: [{ id: "c", name: "t", arguments: { a: { b: 1 } } }] },
      { type: "human", content: "hi", extra: 1 },
      holey,
    ]) {
      expect(plainMessagesUpdate(v)).toBeUndefined();
      check(plainMessagesUpdate, messagesUpdateSchema(), v);
    }
  });
});

describe("plainToolCalls", () => {
  it("gives what AgentState's toolCalls schema gives for every value it takes", () => {
    const schema = AgentState.fields.get("toolCalls")!.schema;
    const r = rng(7);
    const counts = { plain: 0, zod: 0 };
    for (let i = 0; i < 3000; i++) {
      const v =
        r() < 0.9
          ? Array.from({ length: Math.floor(r() * 3) }, () => toolCallValue(r))
          : pick(r, [null, {}, "x", [null]]);
      counts[check(plainToolCalls, schema, v)]++;
    }
    expect(counts.plain).toBeGreaterThan(500);
    expect(counts.zod).toBeGreaterThan(500);
  });
});
