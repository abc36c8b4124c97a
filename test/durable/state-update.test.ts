/**
 * Editing state from outside a node on every store, each call cold (a new graph object and a
 * new store handle): updateState with and without asNode, a Command as input, and a fork
 * edited and continued.
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { Command, Graph, node, START, when } from "../../src/graph/index.js";
import { END } from "../../src/graph/routing.js";
import { defineState, reducer } from "../../src/state/index.js";
import type { StateStore } from "../../src/stores/types.js";
import { describeStores } from "./stores.js";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  ok: z.boolean().default(false),
});
type S = typeof State.State;

function build(store: StateStore) {
  const a = node(
    (s: S, ctx) => ({ log: [`a:${ctx.interrupt<string>("go?", { key: "go" })}:${s.ok}`] }),
    { name: "a" },
  );
  const b = node((s: S) => ({ log: [`b:${s.ok}`] }), { name: "b" });
  const c = node((s: S) => ({ log: [`c:${s.ok}`] }), { name: "c" });
  return new Graph(State, { stateStore: store }).flow(
    START.to(a),
    a.to(when((s: S) => s.ok, b, { otherwise: c })),
    b.to(END),
    c.to(END),
  );
}

describeStores("editing state", (fx) => {
  it("updateState, then a Command with resume and update: each call cold", async () => {
    const first = await fx.open();
    const cold = async () => build(await fx.reopen(first));
    await (await cold()).invoke({}, { threadId: "t" });
    const snap = await (await cold()).updateState("t", { log: ["note"] });
    expect([snap.step, snap.next, snap.interrupts.map((i) => i.key)]).toEqual([0, ["a"], ["go"]]);
    expect((await (await cold()).getState("t")).state).toEqual({ log: ["note"], ok: false });
    const r = await (await cold()).invoke(
      new Command({ resume: { go: "yes" }, update: { ok: true } }),
      { threadId: "t" },
    );
    expect(r.state).toEqual({ log: ["note", "a:yes:true", "b:true"], ok: true });
    expect((await (await cold()).getState("t")).state).toEqual(r.state);
  });

  it("asNode on a fork: edit and branch, cold", async () => {
    const store = await fx.open();
    const cold = async () => build(await fx.reopen(store));
    await (await cold()).invoke({}, { threadId: "t" });
    await (await cold()).invoke(null, { threadId: "t", resume: { go: "main" } });
    const paused = (await (await cold()).history("t")).find((e) => e.type === "run_finished")!;
    await (await cold()).fork("t", { eventId: paused.id, branchId: "edit" });
    const snap = await (await cold()).updateState(
      "t",
      { log: ["by hand"], ok: true },
      { asNode: "a", branchId: "edit" },
    );
    expect([snap.step, snap.next, snap.interrupts]).toEqual([1, ["b"], []]);
    const r = await (await cold()).invoke(null, { threadId: "t", branchId: "edit" });
    expect(r.state).toEqual({ log: ["by hand", "b:true"], ok: true });
    expect((await (await cold()).getState("t")).state).toEqual({
      log: ["a:main:false", "c:false"],
      ok: false,
    });
  });
});
