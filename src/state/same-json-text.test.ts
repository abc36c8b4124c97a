import { describe, expect, it } from "vitest";
import { sameJsonText } from "./same-json-text.js";

/** Pairs and what the walk answers; where it answers, the texts agree with it. */
const CASES: [unknown, unknown, boolean | null][] = [
  [
    [{ id: "c1", name: "lookup", arguments: { q: "x" } }],
    [{ id: "c1", name: "lookup", arguments: { q: "x" } }],
    true,
  ],
  [[{ id: "c1", args: { q: "x" } }], [{ id: "c1", args: { q: "y" } }], false],
  [{ a: 1, b: 2 }, { b: 2, a: 1 }, null],
  [{ a: 1 }, { a: 1, b: 2 }, null],
  [[1, 2], [1, 2, 3], false],
  [[1, 2], [1, 3], false],
  [[0], [-0], true],
  [[1.5, "s", true, null], [1.5, "s", true, null], true],
  [["1"], [1], false],
  [[null], ["null"], false],
  [[true], ["true"], false],
  [[{}], [[]], false],
  [{ a: undefined }, {}, null],
  [[undefined], [null], null],
  [[Number.NaN], [null], null],
  [[Number.POSITIVE_INFINITY], [null], null],
  [[new Date(0)], ["1970-01-01T00:00:00.000Z"], null],
  [[{ toJSON: () => "x" }], ["x"], null],
  [[() => 1], [null], null],
  [[Object.create(null)], [{}], true],
  [[1n], [1n], null],
  [{ a: [{ b: [1, { c: "d" }] }] }, { a: [{ b: [1, { c: "d" }] }] }, true],
  [{ a: [{ b: [1, { c: "d" }] }] }, { a: [{ b: [1, { c: "e" }] }] }, false],
];

/**
 * A proxy whose `has` trap hides the `toJSON` its `get` gives: `JSON.stringify` reads
 * `toJSON` with a get (and calls it when it is a function), as the walk must.
 */
const hiddenToJson = new Proxy(
  { a: 1 },
  {
    has: (t, k) => k !== "toJSON" && k in t,
    get: (t, k) => (k === "toJSON" ? () => "X" : Reflect.get(t, k)),
  },
);

describe("sameJsonText", () => {
  it("reads toJSON as JSON.stringify does (a get, not an `in`)", () => {
    expect([JSON.stringify([hiddenToJson]), sameJsonText([hiddenToJson], [{ a: 1 }])]).toEqual([
      '["X"]',
      null,
    ]);
  });

  it("answers each case as listed, and never against JSON.stringify", () => {
    const answers = CASES.map(([a, b]) => sameJsonText(a, b));
    expect(answers).toEqual(CASES.map(([, , r]) => r));
    for (const [a, b, r] of CASES) {
      if (r === null || typeof a === "bigint") continue;
      let texts: boolean | null;
      try {
        texts = JSON.stringify(a) === JSON.stringify(b);
      } catch {
        texts = null;
      }
      expect([a, b, texts]).toEqual([a, b, r]);
    }
  });

  it("is symmetric", () => {
    expect(CASES.map(([a, b]) => sameJsonText(b, a))).toEqual(CASES.map(([, , r]) => r));
  });
});
