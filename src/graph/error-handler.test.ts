import { describe, expect, it } from "vitest";
import { z } from "zod";
import { caught } from "../../test/helpers.js";
import { GraphExecutionError } from "../errors/index.js";
import { defineState, reducer } from "../state/define-state.js";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { Command, END } from "./routing.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

const boom = (message: string) => () => {
  throw new Error(message);
};

describe("onError", () => {
  it("turns a failure into an update after the retries, and records the error", async () => {
    let attempts = 0;
    const seen: unknown[] = [];
    const flaky = node(
      () => {
        attempts++;
        throw new TypeError("service down");
      },
      {
        name: "flaky",
        retry: { maxAttempts: 3, initialIntervalMs: 1, jitter: false, retryOn: () => true },
        onError: (error, state: S, ctx) => {
          seen.push([error.message, state.log, ctx]);
          return { log: [`handled ${error.name}`] };
        },
      },
    );
    const after = node((s: S) => ({ log: [`after ${s.log.length}`] }), { name: "after" });
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
      START.to(flaky),
      flaky.to(after),
      after.to(END),
    );
    const r = await g.invoke({ log: ["in"] }, { threadId: "t" });
    expect(attempts).toBe(3);
    expect(seen).toEqual([
      ["service down", ["in"], { graph: "graph", node: "flaky", step: 0, taskId: "0:0" }],
    ]);
    expect(r.state.log).toEqual(["in", "handled TypeError", "after 2"]);
    const commit = (await g.history("t")).find((e) => e.type === "step_committed")!;
    expect(commit.data).toEqual({
      next: ["after"],
      update: { log: ["handled TypeError"] },
      error: { name: "TypeError", message: "service down" },
    });
    // A new graph object reads the same thread.
    const cold = new Graph(State, { stateStore: g.stateStore }).flow(
      START.to(flaky),
      flaky.to(after),
      after.to(END),
    );
    expect((await cold.getState("t")).state).toEqual(r.state);
  });

  it("a graph default handles nodes without one; a handler's Command routes within goto", async () => {
    const fallback = node(() => ({ log: ["fallback"] }), { name: "fallback" });
    const a = node(boom("a failed"), { name: "a", goto: [fallback, END] });
    const b = node(boom("b failed"), {
      name: "b",
      onError: () => ({ log: ["b's own"] }),
    });
    const g = new Graph(State, {
      stateStore: new MemoryStateStore(),
      onError: (error, _s, ctx) =>
        ctx.node === "a" ? new Command({ update: { log: [error.message] }, goto: fallback }) : {},
    }).flow(START.to([a, b]), b.to(END), fallback.to(END));
    const r = await g.invoke({}, { threadId: "t" });
    expect(r.state.log).toEqual(["a failed", "b's own", "fallback"]);
    const finished = (await g.history("t")).filter((e) => e.type === "task_finished");
    expect(finished.map((e) => [e.node, e.data])).toEqual([
      [
        "a",
        {
          update: { log: ["a failed"] },
          routes: [{ name: "fallback", payload: null }],
          error: { name: "Error", message: "a failed" },
        },
      ],
      ["b", { update: { log: ["b's own"] }, error: { name: "Error", message: "b failed" } }],
    ]);
  });

  it("is never called for an interrupt", async () => {
    let called = 0;
    const ask = node((_s: S, ctx) => ({ log: [ctx.interrupt<string>("ok?", { key: "ok" })] }), {
      name: "ask",
      onError: () => {
        called++;
        return {};
      },
    });
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
      START.to(ask),
      ask.to(END),
    );
    const r = await g.invoke({}, { threadId: "t" });
    expect([r.status, called]).toEqual(["interrupted", 0]);
    const done = await g.invoke(null, { threadId: "t", resume: { ok: "yes" } });
    expect([done.state.log, called]).toEqual([["yes"], 0]);
  });

  it("a handler that throws fails the run with both errors, and the failure is recorded", async () => {
    const original = new Error("disk full");
    const bad = node(
      () => {
        throw original;
      },
      {
        name: "bad",
        onError: () => {
          throw new RangeError("handler broke");
        },
      },
    );
    const g = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
      START.to(bad),
      bad.to(END),
    );
    const e = (await caught(() => g.invoke({}, { threadId: "t" }))) as GraphExecutionError;
    expect(e).toBeInstanceOf(GraphExecutionError);
    expect(e.message).toBe(
      'Node "bad" of graph "graph" failed (Error: disk full) and its onError handler threw too (RangeError: handler broke); both are in the cause',
    );
    expect([e.node, e.step]).toEqual(["bad", 0]);
    const cause = e.cause as AggregateError;
    expect(cause).toBeInstanceOf(AggregateError);
    expect(cause.errors[0]).toBe(original);
    expect((cause.errors[1] as Error).message).toBe("handler broke");
    const last = (await g.history("t")).at(-1)!;
    expect([last.type, last.data]).toEqual([
      "run_failed",
      { error: { name: "GraphExecutionError", message: e.message } },
    ]);
    expect(() => node(() => ({}), { name: "x", onError: 1 as never })).toThrow(
      new TypeError('node "x": onError must be a function (error, state, ctx) => update | Command'),
    );
  });
});
