import { describe, expect, it } from "vitest";
import { copierFor, spreadCopy } from "./shallow-copy.js";
import { copyState, noteWrites, shallowCopy } from "./state-copy.js";

describe("copierFor", () => {
  it("copies as a spread does: a plain object, the same keys in the same order, the same values", () => {
    const list = [1];
    const state: Record<string, unknown> = {
      b: 1,
      a: "x",
      "with space": null,
      'quote"s\n': true,
      "2": "two",
      "1": list,
    };
    const copy = copierFor(state)(state);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(Object.keys({ ...state }));
    expect(Object.keys(copy)).toEqual(["1", "2", "b", "a", "with space", 'quote"s\n']);
    expect(copy).toEqual(state);
    expect(copy).not.toBe(state);
    expect(copy["1"]).toBe(list);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(state));
    expect(structuredClone(copy)).toEqual(state);
  });

  it("gives the same copier to objects with the same keys, another to other keys", () => {
    const one = copierFor({ p: 1, q: 2 });
    expect(copierFor({ p: 3, q: 4 })).toBe(one);
    expect(copierFor({ q: 1, p: 2 })).not.toBe(one);
    expect(copierFor({ q: 1, p: 2 })({ q: 7, p: 8 })).toEqual({ q: 7, p: 8 });
  });

  it("gives key lists that join to the same string (a key holding \\u0000) their own copies", () => {
    const joined = { "a\u0000b": 1 };
    expect(copierFor(joined)(joined)).toEqual({ "a\u0000b": 1 });
    const split = { a: 2, b: 3 };
    const copy = copierFor(split)(split);
    expect(copy).toEqual({ a: 2, b: 3 });
    expect(Object.keys(copy)).toEqual(["a", "b"]);
    expect(Object.keys(copierFor(joined)(joined))).toEqual(["a\u0000b"]);
  });

  it("copies by spread a state with a __proto__ key, and an empty one", () => {
    const state = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<
      string,
      unknown
    >;
    expect(copierFor(state)).toBe(spreadCopy);
    const copy = copierFor(state)(state);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(copierFor({})).toBe(spreadCopy);
  });
});

describe("copyState and noteWrites", () => {
  it("copies the list and object fields one level, and follows in-place writes told to it", () => {
    const state: Record<string, unknown> = { n: 1, items: [1], meta: { k: 1 } };
    const a = copyState(state);
    expect(a).toEqual({ n: 1, items: [1], meta: { k: 1 } });
    expect(a.items).not.toBe(state.items);
    expect(a.meta).not.toBe(state.meta);
    // Written in place: n now holds a list, items a number, and a new field a list.
    state.n = [2];
    state.items = 0;
    state.extra = [3];
    noteWrites(state, ["n", "items", "extra"], true);
    const b = copyState(state);
    expect(b).toEqual({ n: [2], items: 0, meta: { k: 1 }, extra: [3] });
    expect(Object.keys(b)).toEqual(["n", "items", "meta", "extra"]);
    expect(b.n).not.toBe(state.n);
    expect(b.extra).not.toBe(state.extra);
    // A field deleted (a superstep's writes put back).
    delete state.extra;
    noteWrites(state, ["extra"], true);
    expect(copyState(state)).toEqual({ n: [2], items: 0, meta: { k: 1 } });
    expect(shallowCopy(state)).toEqual({ n: [2], items: 0, meta: { k: 1 } });
    expect(shallowCopy(state).n).toBe(state.n);
  });

  it("lays a payload over the state, its lists copied too", () => {
    const payload = { items: [9] };
    const out = copyState({ n: 1, items: [1] }, payload);
    expect(out).toEqual({ n: 1, items: [9] });
    expect(out.items).not.toBe(payload.items);
  });
});
