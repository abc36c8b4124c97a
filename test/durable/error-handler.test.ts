/** onError on every store: a handled failure is a task result like any other, read back cold. */
import { expect, it } from "vitest";
import { z } from "zod";
import { Graph, node, START } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

function build(store: StateStore, calls: string[]) {
  const fail = (name: string) =>
    node(
      () => {
        calls.push(name);
        throw new Error(`${name} failed`);
      },
      { name },
    );
  const a = fail("a");
  const b = fail("b");
  const ask = node((_s, ctx) => ({ log: [ctx.interrupt<string>("?", { key: "q" })] }), {
    name: "ask",
  });
  return new Graph(State, {
    stateStore: store,
    onError: (error) => ({ log: [`handled: ${error.message}`] }),
  }).flow(START.to([a, b]), a.to(ask), b.to(END), ask.to(END));
}

describeStores("onError", (fx) => {
  it("handled failures are stored results: a cold resume does not run the failed nodes again", async () => {
    const first = await fx.open();
    const calls: string[] = [];
    const r = await build(first, calls).invoke({}, { threadId: "t" });
    expect([r.status, r.state.log]).toEqual([
      "interrupted",
      ["handled: a failed", "handled: b failed"],
    ]);
    const done = await build(await fx.reopen(first), calls).invoke(null, {
      threadId: "t",
      resume: { q: "fine" },
    });
    expect(done.state.log).toEqual(["handled: a failed", "handled: b failed", "fine"]);
    expect(calls).toEqual(["a", "b"]);
    const events = await build(await fx.reopen(first), calls).history("t");
    expect(
      events
        .filter((e) => e.type === "task_finished")
        .map((e) => (e.data as { error: unknown }).error),
    ).toEqual([
      { name: "Error", message: "a failed" },
      { name: "Error", message: "b failed" },
    ]);
  });
});
