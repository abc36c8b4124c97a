import { describe, expect, it } from "vitest";
import { diffJson, jsonEqual } from "./json-diff.js";

describe("diffJson", () => {
  it("finds no change between equal values, whatever the key order", () => {
    expect(diffJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual({
      changes: [],
      truncated: false,
    });
    expect(diffJson(null, null)).toEqual({ changes: [], truncated: false });
  });

  it("lists replaced scalars, added and removed keys, with their paths", () => {
    expect(diffJson({ n: 1, gone: "x", same: true }, { n: 2, same: true, added: [1] })).toEqual({
      changes: [
        { op: "replace", path: ["n"], from: 1, to: 2 },
        { op: "remove", path: ["gone"], value: "x" },
        { op: "add", path: ["added"], value: [1] },
      ],
      truncated: false,
    });
  });

  it("diffs arrays index by index: an append is one add, a shorter array removes from the end", () => {
    const m1 = { type: "human", content: "hi" };
    const m2 = { type: "ai", content: "hello" };
    expect(diffJson({ messages: [m1] }, { messages: [m1, m2] }).changes).toEqual([
      { op: "add", path: ["messages", 1], value: m2 },
    ]);
    expect(diffJson([1, 2, 3], [1]).changes).toEqual([
      { op: "remove", path: [2], value: 3 },
      { op: "remove", path: [1], value: 2 },
    ]);
    expect(diffJson([{ a: 1 }], [{ a: 2 }]).changes).toEqual([
      { op: "replace", path: [0, "a"], from: 1, to: 2 },
    ]);
  });

  it("replaces a value of another type as a whole, the root included", () => {
    expect(diffJson({ a: [1] }, { a: { 0: 1 } }).changes).toEqual([
      { op: "replace", path: ["a"], from: [1], to: { 0: 1 } },
    ]);
    expect(diffJson("x", 3).changes).toEqual([{ op: "replace", path: [], from: "x", to: 3 }]);
    expect(diffJson(null, { a: 1 }).changes).toEqual([
      { op: "replace", path: [], from: null, to: { a: 1 } },
    ]);
  });

  it("stops at maxChanges and says so", () => {
    const before = { a: 1, b: 1, c: 1 };
    const after = { a: 2, b: 2, c: 2 };
    expect(diffJson(before, after, { maxChanges: 2 })).toEqual({
      changes: [
        { op: "replace", path: ["a"], from: 1, to: 2 },
        { op: "replace", path: ["b"], from: 1, to: 2 },
      ],
      truncated: true,
    });
    expect(diffJson(before, after, { maxChanges: 3 }).truncated).toBe(false);
    expect(() => diffJson(1, 2, { maxChanges: 0 })).toThrow(
      new TypeError("diffJson: maxChanges must be an integer ≥ 1, got 0"),
    );
  });

  it("jsonEqual tells arrays from objects and missing keys from undefined ones", () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ a: undefined }, { b: undefined })).toBe(false);
    expect(jsonEqual([1, [2]], [1, [2]])).toBe(true);
  });
});
