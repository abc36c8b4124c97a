import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught, expectError } from "../../test/helpers.js";
import { ModelProviderError, StateUpdateError, ValueError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { retryableByDefault, StoreNodeCache } from "./policies.js";
import { END } from "./routing.js";

const State = defineState({
  q: z.string().default(""),
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;
const fast = { initialIntervalMs: 1, jitter: false };

describe("retry policy", () => {
  it("retries a failing node and discards the failed attempts' writes and cache", async () => {
    let attempts = 0;
    const flaky = node(
      (_s: S, ctx) => {
        attempts++;
        ctx.cache.seen = attempts;
        if (attempts < 3) throw new Error(`attempt ${attempts} failed`);
        return { log: [`ok on ${attempts}, cache saw ${ctx.cache.seen}`] };
      },
      { name: "flaky", retry: { maxAttempts: 3, ...fast } },
    );
    const { state } = await new Graph(State).flow(START.to(flaky), flaky.to(END)).invoke({});
    expect(state.log).toEqual(["ok on 3, cache saw 3"]);
    expect(attempts).toBe(3);
  });

  it("gives up after maxAttempts with the last error", async () => {
    let attempts = 0;
    const bad = node(
      () => {
        attempts++;
        throw new Error(`attempt ${attempts}`);
      },
      { name: "bad" },
    );
    const g = new Graph(State, { retry: { maxAttempts: 2, ...fast } }).flow(
      START.to(bad),
      bad.to(END),
    );
    expect((await caught(() => g.invoke({}))).message).toBe("attempt 2");
    expect(attempts).toBe(2);
  });

  it("does not retry bugs, state errors, interrupts or errors outside retryOn", async () => {
    let attempts = 0;
    const wrong = node(
      () => {
        attempts++;
        return { nope: 1 } as never;
      },
      { name: "wrong", retry: { maxAttempts: 5, ...fast } },
    );
    await caught(() => new Graph(State).flow(START.to(wrong), wrong.to(END)).invoke({}));
    expect(attempts).toBe(1);
    let asked = 0;
    const ask = node(
      (_s: S, ctx) => {
        asked++;
        ctx.interrupt("q");
      },
      { name: "ask", retry: { maxAttempts: 5, ...fast } },
    );
    expect((await new Graph(State).flow(START.to(ask), ask.to(END)).invoke({})).status).toBe(
      "interrupted",
    );
    expect(asked).toBe(1);
    let only = 0;
    const picky = node(
      () => {
        only++;
        throw new RangeError("not retried");
      },
      { name: "picky", retry: { maxAttempts: 5, ...fast, retryOn: [SyntaxError] } },
    );
    await caught(() => new Graph(State).flow(START.to(picky), picky.to(END)).invoke({}));
    expect(only).toBe(1);
  });

  it("retries by default what waiting can heal", () => {
    expect(retryableByDefault(new Error("network"))).toBe(true);
    expect(
      retryableByDefault(new ModelProviderError("429", { provider: "x", retryable: true })),
    ).toBe(true);
    expect(
      retryableByDefault(new ModelProviderError("401", { provider: "x", retryable: false })),
    ).toBe(false);
    expect(retryableByDefault(new StateUpdateError("bad"))).toBe(false);
    expect(retryableByDefault(new TypeError("bug"))).toBe(false);
  });

  it("checks the policy", async () => {
    await expectError(
      () => node(() => ({}), { name: "n", retry: { maxAttempts: 0 } }),
      ValueError,
      'node "n": retry.maxAttempts must be a positive integer, got 0',
    );
    await expectError(
      () => new Graph(State, { retry: { initialIntervalMs: -1 } }),
      ValueError,
      'Graph "graph": retry.initialIntervalMs must be a non-negative number, got -1',
    );
  });
});

describe("cache policy", () => {
  it("reuses a node's result for the same input, and runs it again for another", async () => {
    let runs = 0;
    const lookup = node(
      (s: S) => {
        runs++;
        return { log: [`answer to ${s.q}`] };
      },
      { name: "lookup", cache: {} },
    );
    const g = new Graph(State).flow(START.to(lookup), lookup.to(END));
    expect((await g.invoke({ q: "a" })).state.log).toEqual(["answer to a"]);
    expect((await g.invoke({ q: "a" })).state.log).toEqual(["answer to a"]);
    expect((await g.invoke({ q: "b" })).state.log).toEqual(["answer to b"]);
    expect(runs).toBe(2);
  });

  it("keys by a function, expires after ttlMs, and can live in a state store shared by graphs", async () => {
    const store = new MemoryStateStore();
    let runs = 0;
    const mk = () => {
      const lookup = node(
        (s: S) => {
          runs++;
          return { log: [`${s.q}#${runs}`] };
        },
        { name: "lookup", cache: { key: (s) => String(s.q).toLowerCase(), ttlMs: 60_000 } },
      );
      return new Graph(State, { nodeCache: new StoreNodeCache(store) }).flow(
        START.to(lookup),
        lookup.to(END),
      );
    };
    expect((await mk().invoke({ q: "A" })).state.log).toEqual(["A#1"]);
    expect((await mk().invoke({ q: "a" })).state.log).toEqual(["A#1"]);
    expect(runs).toBe(1);
    const short = node(
      (s: S) => {
        runs++;
        return { log: [`${s.q}#${runs}`] };
      },
      { name: "short", cache: { ttlMs: 5 } },
    );
    const g = new Graph(State).flow(START.to(short), short.to(END));
    await g.invoke({ q: "x" });
    await new Promise((r) => setTimeout(r, 20));
    expect((await g.invoke({ q: "x" })).state.log).toEqual(["x#3"]);
  });
});
