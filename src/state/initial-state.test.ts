import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { applyRunInput } from "./apply-update.js";
import { defineState, prepareUpdate } from "./define-state.js";
import { initialState } from "./initial-state.js";
import { MAX_COPIERS, makerForKeys } from "./shallow-copy.js";
import { copyState, shallowCopy } from "./state-copy.js";

/** A state of `n` number fields f0 … f(n-1), each defaulting to its index. */
function wide(n: number) {
  const shape: Record<string, z.ZodDefault<z.ZodNumber>> = {};
  for (let i = 0; i < n; i++) shape[`f${i}`] = z.number().default(i);
  return defineState(shape);
}

describe("initialState of many fields", () => {
  it("is a plain object of every default, in the fields' order, each call its own", () => {
    const State = wide(200);
    const a = initialState(State);
    const b = initialState(State);
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(Object.keys(a)).toEqual(Array.from({ length: 200 }, (_, i) => `f${i}`));
    expect(a.f0).toBe(0);
    expect(a.f199).toBe(199);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    a.f5 = 50;
    expect(b.f5).toBe(5);
    expect(JSON.stringify(shallowCopy(a))).toBe(JSON.stringify(a));
  });

  it("calls a default made by a function for each state, and follows the fields it leaves out", () => {
    let calls = 0;
    const State = defineState({
      id: z.string().default(() => `id-${++calls}`),
      // A default that is sometimes undefined: the field is absent from that state.
      maybe: z
        .number()
        .optional()
        // (zod's types take a default of the inner type; the engine leaves out an undefined one.)
        .default(() => (calls % 2 === 0 ? 7 : undefined) as number),
      list: z.array(z.number()).default([1]),
      n: z.number().default(3),
    });
    expect(initialState(State)).toEqual({ id: "id-1", list: [1], n: 3 });
    expect(Object.keys(initialState(State))).toEqual(["id", "maybe", "list", "n"]);
    const third = initialState(State);
    expect(third).toEqual({ id: "id-3", list: [1], n: 3 });
    // copyState knows the list field of a state made this way: its copy has its own list.
    const copy = copyState(third);
    expect(copy).toEqual(third);
    expect(copy.list).not.toBe(third.list);
  });

  it("makes objects with makerForKeys' keys and values, and refuses keys it cannot set", () => {
    const make = makerForKeys(["b", "a", 'q"\n']);
    expect(make).not.toBeNull();
    const made = make!([1, [2], null]);
    expect(Object.keys(made)).toEqual(["b", "a", 'q"\n']);
    expect(made).toEqual({ b: 1, a: [2], 'q"\n': null });
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(makerForKeys(["__proto__", "a"])).toBeNull();
    expect(makerForKeys([])).toBeNull();
  });

  it("gives definitions whose field names join to the same string their own states", () => {
    const Joined = defineState({ "j\u0000k": z.number().default(1) });
    const Split = defineState({ j: z.number().default(2), k: z.array(z.number()).default([3]) });
    expect(initialState(Joined)).toEqual({ "j\u0000k": 1 });
    const split = initialState(Split);
    expect(split).toEqual({ j: 2, k: [3] });
    expect(Object.keys(split)).toEqual(["j", "k"]);
    const copy = copyState(split);
    expect(copy).toEqual({ j: 2, k: [3] });
    expect(copy.k).not.toBe(split.k);
    expect(initialState(Joined)).toEqual({ "j\u0000k": 1 });
  });

  it("makes each key list's constructor once, for a definition whose defaulted fields change", () => {
    let calls = 0;
    const State = defineState({
      alt1: z.number().default(1),
      // (zod's types take a default of the inner type; the engine leaves out an undefined one.)
      alt2: z
        .number()
        .optional()
        .default(() => (++calls % 2 === 0 ? 7 : undefined) as number),
      alt3: z.number().default(3),
    });
    // Code made from strings: a maker and a copier for each of the two key lists, not a maker
    // per state (half a millisecond each at 200 fields).
    const made = vi.spyOn(globalThis, "Function");
    const states = Array.from({ length: 6 }, () => initialState(State));
    expect(made).toHaveBeenCalledTimes(4);
    made.mockRestore();
    expect(states).toEqual([
      { alt1: 1, alt3: 3 },
      { alt1: 1, alt2: 7, alt3: 3 },
      { alt1: 1, alt3: 3 },
      { alt1: 1, alt2: 7, alt3: 3 },
      { alt1: 1, alt3: 3 },
      { alt1: 1, alt2: 7, alt3: 3 },
    ]);
    expect(makerForKeys(["alt1", "alt3"])).toBe(makerForKeys(["alt1", "alt3"]));
  });
});

describe("applyRunInput", () => {
  const State = defineState({
    n: z.number().default(0),
    items: z.array(z.number()).default([]),
    note: z.string().optional(),
  });

  it("writes a fresh state in place, and a loaded one into a copy that copyState knows", () => {
    const fresh = initialState(State);
    const update = prepareUpdate(State, { n: 2, note: "hi" }, "__input__");
    const a = applyRunInput(State, fresh, update, true);
    expect(a).toBe(fresh);
    expect(a).toEqual({ n: 2, items: [], note: "hi" });
    // The field added by the input is in the state's copies.
    expect(Object.keys(copyState(a))).toEqual(["n", "items", "note"]);

    const loaded = { n: 5, items: [1] };
    const b = applyRunInput(
      State,
      loaded,
      prepareUpdate(State, { items: [9] }, "__input__"),
      false,
    );
    expect(loaded).toEqual({ n: 5, items: [1] });
    expect(b).toEqual({ n: 5, items: [9] });
    const copy = copyState(b);
    expect(copy).toEqual({ n: 5, items: [9] });
    expect(copy.items).not.toBe(b.items);
  });

  it("copies a field the input turned into a list one level, and one it turned into a number not", () => {
    const Loose = defineState({ v: z.union([z.number(), z.array(z.number())]).default(1) });
    const s = applyRunInput(
      Loose,
      initialState(Loose),
      prepareUpdate(Loose, { v: [4] }, "i"),
      true,
    );
    const copy = copyState(s);
    expect(copy.v).toEqual([4]);
    expect(copy.v).not.toBe(s.v);
    const t = applyRunInput(Loose, s, prepareUpdate(Loose, { v: 3 }, "i"), false);
    expect(copyState(t)).toEqual({ v: 3 });
    expect(s).toEqual({ v: [4] });
  });
});

describe("makerForKeys' limit", () => {
  it(`keeps makers for ${MAX_COPIERS} key lists; past them it makes none`, async () => {
    // A fresh instance of the modules, with no key list kept yet.
    vi.resetModules();
    const copies = await import("./shallow-copy.js");
    const initial = await import("./initial-state.js");
    const define = await import("./define-state.js");
    for (let i = 0; i < MAX_COPIERS; i++) {
      expect(copies.makerForKeys([`limit-${i}`])).not.toBeNull();
    }
    expect(copies.makerForKeys(["limit-new"])).toBeNull();
    // The ones kept are still given out.
    expect(copies.makerForKeys(["limit-0"])?.(["v"])).toEqual({ "limit-0": "v" });
    // initialState then sets the fields one by one: the same state.
    const Late = define.defineState({
      late1: z.number().default(1),
      late2: z.array(z.number()).default([]),
    });
    const late = initial.initialState(Late);
    expect(late).toEqual({ late1: 1, late2: [] });
    expect(Object.keys(late)).toEqual(["late1", "late2"]);
  });
});

describe("a default JSON gives back otherwise", () => {
  it("is taken as JSON gives it: -0 as 0, no key holding undefined", () => {
    const State = defineState({
      n: z.number().default(-0),
      o: z.record(z.string(), z.unknown()).default({ a: undefined, b: -0 }),
    });
    const s = initialState(State) as { n: number; o: Record<string, unknown> };
    expect(Object.is(s.n, 0)).toBe(true);
    expect(Object.keys(s.o)).toEqual(["b"]);
    expect(Object.is(s.o.b, 0)).toBe(true);
  });
});
