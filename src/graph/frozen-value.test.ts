/**
 * frozenValue: a task's result copied when it ends — plain data by a plain copy, anything
 * else as structuredClone copies it (or as it is, when that cannot copy it).
 */
import { describe, expect, it } from "vitest";
import { frozenValue } from "./frozen-value.js";

describe("frozenValue", () => {
  it("gives primitives and null back as they are", () => {
    expect(frozenValue(null)).toBe(null);
    expect(frozenValue(undefined)).toBe(undefined);
    expect(frozenValue(3)).toBe(3);
    expect(frozenValue("s")).toBe("s");
    expect(frozenValue(10n)).toBe(10n);
  });

  it("copies plain data deeply: equal, key order kept, no object or array shared", () => {
    const inner = { q: ["a", { b: 1 }] };
    const value = { z: 1, a: inner, list: [inner, null, true], u: undefined };
    const copy = frozenValue(value);
    expect(copy).toStrictEqual(value);
    expect(Object.keys(copy)).toEqual(["z", "a", "list", "u"]);
    expect(copy).not.toBe(value);
    expect(copy.a).not.toBe(inner);
    expect(copy.a.q).not.toBe(inner.q);
    expect(copy.list[0]).not.toBe(inner);
    // Changes made afterwards to what the node holds do not reach the copy.
    inner.q.push("later");
    (inner.q[1] as { b: number }).b = 2;
    expect(copy.a).toEqual({ q: ["a", { b: 1 }] });
    expect(copy.list[0]).toEqual({ q: ["a", { b: 1 }] });
  });

  it("copies an object without a prototype as structuredClone does (a plain object)", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = [1];
    const copy = frozenValue({ bare });
    expect(Object.getPrototypeOf(copy.bare)).toBe(Object.prototype);
    expect(copy.bare).toEqual({ k: [1] });
    expect(copy.bare.k).not.toBe(bare.k);
  });

  it("copies class instances through structuredClone (a Date stays a Date)", () => {
    const when = new Date(1_000);
    const copy = frozenValue({ when, list: [new Map([["a", 1]])] });
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(1_000);
    expect(copy.list[0]).toBeInstanceOf(Map);
    expect([...copy.list[0]!]).toEqual([["a", 1]]);
  });

  it("keeps a __proto__ key as an own key, not as the copy's prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<
      string,
      unknown
    >;
    const copy = frozenValue(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect((copy as { polluted?: boolean }).polluted).toBe(undefined);
    expect(copy).not.toBe(value);
  });

  it("copies a cycle through structuredClone, and deep plain nesting all the way", () => {
    const cyclic: { self?: unknown; n: number } = { n: 1 };
    cyclic.self = cyclic;
    const copy = frozenValue(cyclic);
    expect(copy).not.toBe(cyclic);
    expect(copy.self).toBe(copy);
    let deep: unknown = "leaf";
    for (let i = 0; i < 1_000; i++) deep = [deep];
    let c: unknown = frozenValue(deep);
    let d: unknown = deep;
    let shared = 0;
    for (let i = 0; i < 1_000; i++) {
      if (c === d || !Array.isArray(c)) shared++;
      c = (c as unknown[])[0];
      d = (d as unknown[])[0];
    }
    // (Compared level by level: expect() on a value this deep takes seconds to print.)
    expect(shared).toBe(0);
    expect(c).toBe("leaf");
  });

  it("keeps data structuredClone cannot copy as it is (for the store to refuse with its path)", () => {
    const fn = () => 1;
    const value = { a: { fn } };
    expect(frozenValue(value)).toBe(value);
    const sym = { s: Symbol("x") };
    expect(frozenValue(sym)).toBe(sym);
  });

  it("copies a sparse array through structuredClone, holes kept", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
    const sparse = [1, , 3];
    const copy = frozenValue(sparse);
    expect(copy).not.toBe(sparse);
    expect(1 in copy).toBe(false);
    expect(copy).toEqual(sparse);
  });
});
