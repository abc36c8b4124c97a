import { describe, expect, it } from "vitest";
import * as z from "zod";
import { lazyObject, memo, resolveLazy } from "./lazy.js";

describe("memo", () => {
  it("builds on the first call only, and hands out the same value after", () => {
    let calls = 0;
    const get = memo(() => ({ n: ++calls }));
    expect(calls).toBe(0);
    const a = get();
    expect(get()).toBe(a);
    expect(a).toEqual({ n: 1 });
    expect(calls).toBe(1);
  });

  it("builds again on the next call when the build threw", () => {
    let calls = 0;
    const get = memo(() => {
      calls++;
      if (calls === 1) throw new Error("first");
      return calls;
    });
    expect(() => get()).toThrow("first");
    expect(get()).toBe(2);
    expect(get()).toBe(2);
  });
});

describe("lazyObject", () => {
  it("builds nothing until used, then stands for the built zod schema", () => {
    let built = 0;
    const schema = lazyObject(() => {
      built++;
      return z.strictObject({ id: z.string(), n: z.number().default(1) });
    });
    expect(built).toBe(0);
    expect(schema instanceof z.ZodType).toBe(true);
    expect(schema instanceof z.ZodObject).toBe(true);
    expect(built).toBe(1);
    expect(schema.parse({ id: "a" })).toEqual({ id: "a", n: 1 });
    expect(schema.safeParse({ id: 1 }).success).toBe(false);
    expect(Object.keys(schema.shape)).toEqual(["id", "n"]);
    expect(built).toBe(1);
  });

  it("works inside other schemas and in z.toJSONSchema as the built schema does", () => {
    const build = () => z.strictObject({ type: z.literal("x"), at: z.number().int() });
    const lazy = lazyObject(build);
    const list = z.array(lazy).min(1);
    expect(list.parse([{ type: "x", at: 3 }])).toEqual([{ type: "x", at: 3 }]);
    expect(list.safeParse([{ type: "y", at: 3 }]).error?.issues[0]?.path).toEqual([0, "type"]);
    expect(z.toJSONSchema(lazy)).toEqual(z.toJSONSchema(build()));
    expect(lazy.optional().parse(undefined)).toBe(undefined);
  });

  it("forwards property writes, deletes, listing and the prototype", () => {
    const target = { a: 1 } as Record<string, number>;
    const lazy = lazyObject(() => target);
    lazy.b = 2;
    expect(target).toEqual({ a: 1, b: 2 });
    delete lazy.a;
    expect(target).toEqual({ b: 2 });
    expect(Object.keys(lazy)).toEqual(["b"]);
    expect("b" in lazy).toBe(true);
    expect({ ...lazy }).toEqual({ b: 2 });
    expect(JSON.stringify(lazy)).toBe('{"b":2}');
    expect(Object.getPrototypeOf(lazy)).toBe(Object.prototype);
    const map = lazyObject(() => new Map([["k", 1]]));
    expect(map instanceof Map).toBe(true);
  });

  it("cannot be frozen (its stand-in cannot follow the built object there)", () => {
    const lazy = lazyObject(() => ({ a: 1 }));
    expect(() => Object.freeze(lazy)).toThrow(TypeError);
  });
});

describe("resolveLazy", () => {
  it("returns the built object of a stand-in (building it), and any other value as it is", () => {
    let calls = 0;
    const built = { a: 1 };
    const lazy = lazyObject(() => {
      calls++;
      return built;
    });
    expect(calls).toBe(0);
    const real = resolveLazy(lazy);
    expect(real).toBe(built);
    expect(real).not.toBe(lazy);
    expect(calls).toBe(1);
    expect(resolveLazy(lazy)).toBe(built);
    expect(calls).toBe(1);
    const plain = { a: 1 };
    expect(resolveLazy(plain)).toBe(plain);
    const fn = () => 1;
    expect(resolveLazy(fn)).toBe(fn);
    expect(resolveLazy(null)).toBe(null);
    expect(resolveLazy(3)).toBe(3);
    expect(resolveLazy("x")).toBe("x");
    // The key it reads is not one of the stand-in's own keys.
    expect(Reflect.ownKeys(lazy)).toEqual(["a"]);
  });
});
