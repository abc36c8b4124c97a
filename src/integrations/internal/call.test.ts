import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ModelProviderError, RunCancelledError } from "../../errors/index.js";
import { CallControl, jsonUsage, retryWait } from "./call.js";

describe("jsonUsage", () => {
  class Counts {
    total = 3;
  }
  const sparse: number[] = [1];
  sparse[2] = 3;
  const cases: Array<[string, unknown]> = [
    ["plain counts", { inputTokens: { total: 5, cacheRead: 0 }, outputTokens: 3 }],
    [
      "undefined, functions and symbols dropped",
      { a: undefined, b: () => 1, c: Symbol("s"), d: 1 },
    ],
    ["in arrays they become null", { list: [1, undefined, () => 1, "x", Number.NaN] }],
    ["non-finite numbers become null", { a: Number.POSITIVE_INFINITY, b: -0, c: Number.NaN }],
    ["a Date by its toJSON", { at: new Date(0) }],
    ["a class instance by its fields", { counts: new Counts() }],
    ["a __proto__ key stays a key", JSON.parse('{"__proto__":{"x":1},"y":2}')],
    ["sparse arrays", { list: sparse }],
    ["null-prototype objects", Object.assign(Object.create(null), { a: { b: [true, null] } })],
  ];
  it.each(cases)("copies as JSON does: %s", (_name, value) => {
    expect(jsonUsage(value)).toStrictEqual(JSON.parse(JSON.stringify(value)));
    expect(Object.keys(jsonUsage(value))).toEqual(Object.keys(JSON.parse(JSON.stringify(value))));
  });

  it("drops null fields with dropNull, and fails on a cycle or a bigint as JSON does", () => {
    expect(jsonUsage({ a: null, b: { c: null } }, true)).toEqual({ b: { c: null } });
    expect(jsonUsage(null)).toEqual({});
    expect(jsonUsage(7)).toEqual({});
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { again: cycle };
    expect(() => jsonUsage(cycle)).toThrow(TypeError);
    expect(() => jsonUsage({ n: 1n })).toThrow("Do not know how to serialize a BigInt");
  });
});

describe("CallControl", () => {
  it("times out after timeoutMs of waiting, not counting the time it was paused", async () => {
    const control = new CallControl(80, undefined);
    await sleep(50);
    control.pause(); // the caller takes its time: not counted
    await sleep(100);
    expect(control.signal.aborted).toBe(false);
    control.arm(); // a new wait: 80 ms from here
    await sleep(50);
    expect(control.signal.aborted).toBe(false);
    await sleep(60);
    expect(control.signal.aborted).toBe(true);
    expect(control.timedOut).toBe(true);
    expect((control.signal.reason as Error).message).toBe("timed out after 80 ms");
    expect(control.stopError("p")?.message).toBe("The p call timed out after 80 ms (timeoutMs)");
    control.dispose();
  });

  it("race rejects at once when the caller cancels, even if the promise never settles", async () => {
    const user = new AbortController();
    const control = new CallControl(null, user.signal);
    const waiting = control.race(new Promise(() => {}));
    user.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(control.signal.aborted).toBe(true);
    expect(control.stopError("p")).toBeInstanceOf(RunCancelledError);
    await expect(control.race(Promise.resolve(1))).rejects.toThrow("stop");
    control.dispose();
    const free = new CallControl(1000, undefined);
    expect(await free.race(Promise.resolve(2))).toBe(2);
    await expect(free.race(Promise.reject(new Error("model")))).rejects.toThrow("model");
    free.dispose();
    await sleep(5);
    expect(free.signal.aborted).toBe(false);
  });

  it("makes its signal when first read, already fired when the control stopped before", async () => {
    const user = new AbortController();
    const early = new CallControl(null, user.signal);
    const read = early.signal;
    expect(read.aborted).toBe(false);
    user.abort("bye");
    expect([read.aborted, read.reason]).toEqual([true, "bye"]);
    const late = new CallControl(10, undefined);
    await sleep(30);
    expect(late.signal.aborted).toBe(true); // read only now
    expect((late.signal.reason as Error).message).toBe("timed out after 10 ms");
    expect(late.signal).toBe(late.signal);
    early.dispose();
    late.dispose();
  });

  it("dispose stops the timer", async () => {
    const control = new CallControl(20, undefined);
    control.dispose();
    await sleep(40);
    expect(control.signal.aborted).toBe(false);
    expect(control.timedOut).toBe(false);
  });
});

describe("retryWait", () => {
  const policy = { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 };
  it("throws what is not retryable, waits once, then gives up saying how many attempts", async () => {
    const bad = new ModelProviderError("bad request", { provider: "p", retryable: false });
    await expect(retryWait(bad, 0, policy, undefined)).rejects.toBe(bad);
    const busy = new ModelProviderError("busy", { provider: "p", status: 503, retryable: true });
    await expect(retryWait(busy, 0, policy, undefined)).resolves.toBeUndefined();
    const last = await retryWait(busy, 1, policy, undefined).catch((e: unknown) => e);
    expect(last).toBeInstanceOf(ModelProviderError);
    expect((last as ModelProviderError).message).toBe("busy (gave up after 2 attempts)");
    expect((last as ModelProviderError).status).toBe(503);
  });
});
