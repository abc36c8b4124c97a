/**
 * What a failure to make a copier turns off: an `EvalError` (the environment refuses code from
 * strings) every later one in the process, any other error only its own key list. Each test
 * loads shallow-copy.ts afresh (its kept copiers and its switch are module state) with
 * `Function` replaced by one that fails as asked.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const RealFunction = Function;

/** Load shallow-copy.ts anew with a `Function` that throws `fail(source)` when that is not null. */
async function loadWith(fail: (source: string) => Error | null) {
  let made = 0;
  function fakeFunction(...args: string[]) {
    const error = fail(args[args.length - 1] as string);
    if (error) throw error;
    made++;
    return RealFunction(...args);
  }
  vi.stubGlobal("Function", fakeFunction);
  vi.resetModules();
  const m = await import("./shallow-copy.js");
  return { m, made: () => made };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("shallow-copy when making a function fails", () => {
  it("a RangeError for one key list: that list copies by spread (not tried again), other lists still get copiers", async () => {
    let tries = 0;
    const { m, made } = await loadWith((source) => {
      if (!source.includes('"huge"')) return null;
      tries++;
      return new RangeError("Maximum call stack size exceeded");
    });
    expect(m.copierForKeys(["huge", "b"])).toBe(m.spreadCopy);
    expect(m.copierForKeys(["huge", "b"])).toBe(m.spreadCopy);
    expect(m.makerForKeys(["huge", "b"])).toBe(null);
    expect(m.makerForKeys(["huge", "b"])).toBe(null);
    expect(tries).toBe(2); // once for the copier, once for the maker
    const copy = m.copierForKeys(["a", "b"]);
    expect(copy).not.toBe(m.spreadCopy);
    expect(copy({ a: 1, b: [2] })).toEqual({ a: 1, b: [2] });
    expect(m.makerForKeys(["a", "b"])?.([1, 2])).toEqual({ a: 1, b: 2 });
    expect(made()).toBe(2);
    expect(m.copierForKeys(["huge", "b"])({ huge: 1, b: 2 })).toEqual({ huge: 1, b: 2 });
  });

  it("an EvalError (code from strings refused): no function is made again in the process, every copy a spread", async () => {
    let tries = 0;
    const { m, made } = await loadWith(() => {
      tries++;
      return new EvalError("Code generation from strings disallowed for this context");
    });
    expect(m.copierForKeys(["a", "b"])).toBe(m.spreadCopy);
    expect(m.copierForKeys(["c"])).toBe(m.spreadCopy);
    expect(m.makerForKeys(["a", "b"])).toBe(null);
    expect(m.copierFor({ x: 1, y: 2 })({ x: 1, y: 2 })).toEqual({ x: 1, y: 2 });
    expect(tries).toBe(1);
    expect(made()).toBe(0);
  });
});
