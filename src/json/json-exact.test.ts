/**
 * jsonExact: after findNonJson passed a value, the value as a JSON round trip gives it back,
 * copied only when it holds a -0 or an object key holding undefined (found by that walk).
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { findNonJson, jsonExact } from "./index.js";

const exact = (v: unknown) => {
  expect(findNonJson(v, "v")).toBeNull();
  return jsonExact(v);
};

describe("jsonExact", () => {
  it("gives back the value itself when JSON keeps it as it is", () => {
    const v = { a: 1, b: [0, "x", null, true, { c: 2.5 }], d: {} };
    expect(exact(v)).toBe(v);
    expect(exact(0)).toBe(0);
    expect(exact("s")).toBe("s");
  });

  it("takes -0 and keys holding undefined as JSON gives them, at any depth", () => {
    expect(Object.is(exact(-0), 0)).toBe(true);
    const v = { a: undefined, b: -0, c: [-0, { d: undefined, e: 1 }] };
    const got = exact(v);
    expect(got).not.toBe(v);
    expect(inspect(got, { depth: null })).toBe("{ b: 0, c: [ 0, { e: 1 } ] }");
    // The value given is not changed.
    expect(inspect(v, { depth: null })).toBe(
      "{ a: undefined, b: -0, c: [ -0, { d: undefined, e: 1 } ] }",
    );
  });

  it("answers for the last check only", () => {
    findNonJson({ a: undefined }, "v");
    const v = { a: 1 };
    expect(exact(v)).toBe(v);
  });

  it("findNonJson still refuses what JSON cannot keep (undefined in a list, a Date)", () => {
    expect(findNonJson({ a: [1, undefined] }, "v")).toEqual({
      path: "v.a[1]",
      problem: "undefined is not JSON (use null)",
    });
    expect(findNonJson({ when: new Date(0) }, "v")).toEqual({
      path: "v.when",
      problem: "a Date instance is not plain JSON data",
    });
  });
});
