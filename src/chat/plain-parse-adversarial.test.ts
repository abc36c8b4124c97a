/**
 * The plain parse (plain-parse.ts) against zod on values built to tell them apart: accessors,
 * Proxies, frozen objects, non-enumerable and symbol keys, inherited keys (Object.prototype
 * polluted, then restored), array subclasses and extra array properties, non-finite and huge
 * numbers, BigInt, Dates, toJSON, lone surrogates, `__proto__`/`constructor` argument keys,
 * deep and wide arguments. Whenever the plain parse answers, zod answers the same data, with
 * the same keys in the same order, sharing nothing with the value; otherwise zod decides.
 */
import { describe, expect, it } from "vitest";
import { messagesUpdateSchema } from "../state/add-messages.js";
import { ai, call, check, hidden, type Obj, toolCallsSchema } from "./plain-parse.fixture.js";

/** An AI message whose tool call's arguments and response metadata have `keys` keys. */
function wide(keys: number): Obj {
  const o: Obj = {};
  for (let i = 0; i < keys; i++) o[`k${i}`] = i;
  return ai({ toolCalls: [call({ arguments: o })], responseMetadata: o });
}

/** Each case: a name, what makes its value, and who must answer it ("plain", "zod"). */
const CASES: Array<[string, () => unknown, "plain" | "zod"]> = [
  ["usage Infinity", () => ai({ usage: { inputTokens: Infinity } }), "zod"],
  ["argument -Infinity", () => ai({ toolCalls: [call({ arguments: { x: -Infinity } })] }), "zod"],
  [
    "huge, negative, fractional usage",
    () => ai({ usage: { inputTokens: 1e308, outputTokens: -5, totalTokens: 1.5 } }),
    "plain",
  ],
  ["usage BigInt", () => ai({ usage: { inputTokens: 1n } }), "zod"],
  ["argument Date", () => ai({ toolCalls: [call({ arguments: { d: new Date(0) } })] }), "zod"],
  [
    "lone surrogates",
    () =>
      ai({
        content: "\ud800",
        toolCalls: [{ id: "\udc00", name: "b", arguments: { "\ud800": "\udfff" } }],
      }),
    "plain",
  ],
  [
    "a getter",
    () =>
      Object.defineProperty({ type: "human", id: null }, "content", {
        get: () => "g",
        enumerable: true,
      }),
    "plain",
  ],
  [
    "a non-enumerable getter",
    () =>
      Object.defineProperty({ type: "human", id: null }, "content", {
        get: () => "g",
        enumerable: false,
      }),
    "plain",
  ],
  ["a non-enumerable type", () => hidden({ id: null, content: "c" }, "type", "human"), "plain"],
  [
    "a setter only",
    () =>
      Object.defineProperty({ type: "human", id: null }, "content", {
        set: () => {},
        enumerable: true,
      }),
    "plain",
  ],
  ["a Proxy message", () => new Proxy({ type: "human", id: null, content: "p" }, {}), "plain"],
  [
    "Proxy arguments",
    () => ai({ toolCalls: [call({ arguments: new Proxy({ q: 1 }, {}) })] }),
    "plain",
  ],
  ["a Proxy list", () => new Proxy([{ type: "human", content: "x" }], {}), "plain"],
  [
    "frozen",
    () =>
      Object.freeze([
        Object.freeze(
          ai({
            toolCalls: Object.freeze([Object.freeze(call({ arguments: Object.freeze({ q: 1 }) }))]),
          }),
        ),
      ]),
    "plain",
  ],
  [
    "a list with an extra property",
    () => Object.assign([{ type: "human", content: "x" }], { extra: 1 }),
    "plain",
  ],
  [
    "an Array subclass",
    () => {
      class A extends Array {}
      const a = new A();
      a.push({ type: "human", content: "x" });
      return a;
    },
    "plain",
  ],
  [
    "tool calls with an extra property",
    () => ai({ toolCalls: Object.assign([call({})], { foo: 1 }) }),
    "plain",
  ],
  [
    "sparse tool calls",
    () => {
      const l: unknown[] = [];
      l[1] = call({});
      return ai({ toolCalls: l });
    },
    "zod",
  ],
  [
    "argument __proto__",
    () => ai({ toolCalls: [call({ arguments: JSON.parse('{"__proto__":"x","a":1}') })] }),
    "zod",
  ],
  [
    "argument constructor",
    () => ai({ toolCalls: [call({ arguments: JSON.parse('{"constructor":"x"}') })] }),
    "zod",
  ],
  [
    "Object.prototype's names as arguments",
    () =>
      ai({
        toolCalls: [
          call({
            arguments: { hasOwnProperty: "x", isPrototypeOf: 1, toString: "s", valueOf: null },
          }),
        ],
      }),
    "plain",
  ],
  [
    "a non-enumerable toJSON argument",
    () => ai({ toolCalls: [call({ arguments: hidden({ a: 1 }, "toJSON", () => ({})) })] }),
    "plain",
  ],
  ["a message toJSON", () => ({ type: "human", content: "x", toJSON: () => ({}) }), "zod"],
  ["a tool call key too many", () => ai({ toolCalls: [call({ extra: 1 })] }), "zod"],
  ["a tool call without id", () => ai({ toolCalls: [{ name: "b" }] }), "zod"],
  [
    "undefined arguments and argumentsError",
    () => ai({ toolCalls: [call({ arguments: undefined, argumentsError: undefined })] }),
    "plain",
  ],
  ["content null", () => ai({ content: null }), "plain"],
  ["content empty", () => ai({ content: "" }), "plain"],
  ["content parts", () => ai({ content: [{ type: "text", text: "t" }] }), "zod"],
  ["refusal", () => ai({ refusal: "no" }), "plain"],
  ["reasoning null", () => ai({ reasoning: null }), "zod"],
  ["usage null", () => ai({ usage: null }), "zod"],
  ["usage raw", () => ai({ usage: { raw: { a: 1 } } }), "zod"],
  ["responseMetadata undefined", () => ai({ responseMetadata: undefined }), "plain"],
  ["responseMetadata {}", () => ai({ responseMetadata: {} }), "plain"],
  ["responseMetadata null", () => ai({ responseMetadata: null }), "zod"],
  [
    "deep arguments",
    () => {
      let v: unknown = 1;
      for (let i = 0; i < 100; i++) v = { v };
      return ai({ toolCalls: [call({ arguments: v })] });
    },
    "zod",
  ],
  ["wide arguments", () => wide(20_000), "plain"],
  [
    "integer-like keys",
    () =>
      ai({
        toolCalls: [call({ arguments: { b: 1, 10: 2, 2: 3, "-1": 4, "01": 5, 4294967295: 6 } })],
      }),
    "plain",
  ],
  [
    "a tool message",
    () => ({ type: "tool", content: "r", name: "n", toolCallId: "c", arguments: { a: -0 } }),
    "plain",
  ],
  [
    "a class instance",
    () =>
      new (class {
        type = "human";
        content = "x";
      })(),
    "zod",
  ],
  [
    "a null prototype",
    () => Object.assign(Object.create(null), { type: "human", content: "x" }),
    "zod",
  ],
  ["a symbol key on a message", () => ({ type: "human", content: "x", [Symbol("s")]: 1 }), "plain"],
  ["a symbol key on a tool call", () => ai({ toolCalls: [call({ [Symbol("s")]: 1 })] }), "plain"],
  ["a symbol key on usage", () => ai({ usage: { inputTokens: 1, [Symbol("s")]: 1 } }), "plain"],
  [
    "a symbol key on arguments",
    () => ai({ toolCalls: [call({ arguments: { a: 1, [Symbol("s")]: 1 } })] }),
    "zod",
  ],
  [
    "a non-enumerable extra key",
    () => hidden({ type: "human", content: "x" }, "extra", 1),
    "plain",
  ],
  ["a non-enumerable usage key", () => ai({ usage: hidden({}, "inputTokens", 3) }), "plain"],
  [
    "non-enumerable arguments",
    () => ai({ toolCalls: [hidden(call({}), "arguments", { q: 1 })] }),
    "plain",
  ],
  [
    "non-enumerable toolCalls",
    () => hidden({ type: "ai", content: "x" }, "toolCalls", [call({})]),
    "plain",
  ],
  [
    "non-enumerable responseMetadata",
    () => hidden({ type: "ai", content: "x" }, "responseMetadata", { a: 1 }),
    "plain",
  ],
  [
    "an arguments object",
    () =>
      ai({
        toolCalls: [
          call({
            arguments: (function (..._a: unknown[]) {
              // biome-ignore lint/complexity/noArguments: the value under test is an arguments object
              return arguments;
            })(1),
          }),
        ],
      }),
    "zod",
  ],
];

describe("the plain parse on adversarial values", () => {
  for (const [name, make, who] of CASES) {
    it(`gives zod's answer: ${name}`, () => {
      expect(check(messagesUpdateSchema(), make())).toBe(who);
      if (!Array.isArray(make())) expect(check(messagesUpdateSchema(), [make(), make()])).toBe(who);
      const v = make() as Obj;
      if (Array.isArray(v?.toolCalls)) check(toolCallsSchema(), v.toolCalls);
    });
  }

  // Under each of the 60 pollutions below, the wide case has 2,000 keys, not 20,000: still far
  // over V8's 1,020 fast properties (an object in dictionary mode, as at 20,000), at a tenth of
  // the cost; the 20,000 keys were 45 of this test's 48 s.
  const POLLUTED: Array<[string, () => unknown]> = CASES.map(([name, make]) => [
    name,
    name === "wide arguments" ? () => wide(2_000) : make,
  ]);

  it("gives zod's answer with a key of Object.prototype polluted (then restored)", () => {
    const proto = Object.prototype as Obj;
    for (const key of [
      "extra",
      "content",
      "type",
      "inputTokens",
      "arguments",
      "responseMetadata",
      "reasoning",
      "toolCalls",
      "q",
      "argumentsError",
      "raw",
      "id",
    ]) {
      for (const value of ["x", 1, undefined, [], {}]) {
        proto[key] = value;
        try {
          for (const [, make] of POLLUTED) {
            check(messagesUpdateSchema(), make());
            const v = make() as Obj;
            if (Array.isArray(v?.toolCalls)) check(toolCallsSchema(), v.toolCalls);
          }
          check(messagesUpdateSchema(), { type: "human" });
          check(messagesUpdateSchema(), ai({ toolCalls: [call({})] }));
          check(toolCallsSchema(), [call({})]);
        } catch (e) {
          throw new Error(`Object.prototype.${key} = ${JSON.stringify(value)}: ${e}`);
        } finally {
          delete proto[key];
        }
      }
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});
