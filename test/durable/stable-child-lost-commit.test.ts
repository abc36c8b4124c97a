/**
 * A `"stable"` child's thread is written by the child's own run before the parent commits the
 * superstep that called it. When that commit is lost (an append that fails; in `"exit"` mode
 * the whole parent run; a SIGKILL between the child's write and the parent's commit), the
 * parent's next call of the node runs the child from where the parent's log knows it
 * (src/graph/stable-rewind.ts): the child counts each committed call once. The lost run stays
 * in the child's history, before a `rolled_back` event. Cold (a new graph per call, a reopened
 * store) and warm (one graph), on memory, SQLite and PostgreSQL.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type { Durability } from "../../src/graph/index.js";
import type { PostgresStateStore } from "../../src/integrations/postgres/index.js";
import type { SqliteStateStore } from "../../src/integrations/sqlite/index.js";
import type { NewEvent, StateStore } from "../../src/stores/types.js";
import { childGraph, stableGraph } from "./fixtures/stable-graph.js";
import { describeStores } from "./stores.js";

/** A view of `inner` whose appends to thread "t" with an event of `type` fail while `on.fail`. */
function failingOn(inner: StateStore, type: string, on: { fail: boolean }): StateStore {
  return new Proxy(inner, {
    get(t, k) {
      if (k === "append" || (k === "appendLeased" && t.appendLeased))
        return async (tid: string, bid: string, ev: NewEvent[], ...rest: never[]) => {
          if (on.fail && tid === "t" && ev.some((e) => e.type === type)) throw new Error("lost");
          return (t[k] as (...a: unknown[]) => unknown).call(t, tid, bid, ev, ...rest);
        };
      const v = Reflect.get(t, k, t);
      return typeof v === "function" ? v.bind(t) : v;
    },
  }) as StateStore;
}

const childTypes = async (store: StateStore) =>
  (await store.read("t:sub", "main")).map((e) => e.type);
const childRuns = async (store: StateStore) =>
  (await childTypes(store)).filter((t) => t === "run_started").length;
/** The child's state, as a new graph reads it from `store`. */
const childState = async (store: StateStore, ask = false) =>
  (await childGraph({ ask }).getState("t:sub", { stateStore: store })).state;

const ONCE_EACH = ["call 1", "after", "call 2", "after"];

describeStores("a stable child's call whose parent commit is lost", (fx) => {
  for (const mode of ["sync", "async"] as const satisfies Durability[]) {
    it(`${mode}, cold: continuing calls the child from where the parent knows it (it counts 2)`, async () => {
      const store = await fx.open();
      await stableGraph(store).invoke({}, { threadId: "t" });
      const on = { fail: true };
      await expect(
        stableGraph(failingOn(store, "step_committed", on)).invoke(
          {},
          { threadId: "t", durability: mode },
        ),
      ).rejects.toThrow(/^lost$/);
      expect(await childRuns(store)).toBe(2);
      const cold = await fx.reopen(store);
      const r = await stableGraph(cold).invoke(null, { threadId: "t" });
      expect(r.state.log).toEqual(ONCE_EACH);
      // The lost run stays in the history; the fold goes back before it.
      expect(await childTypes(cold)).toEqual([
        ...["run_started", "step_committed", "run_finished"],
        ...["run_started", "step_committed", "run_finished"],
        ...["rolled_back", "run_started", "step_committed", "run_finished"],
      ]);
      const again = await stableGraph(await fx.reopen(store)).invoke({}, { threadId: "t" });
      expect(again.state.log).toEqual([...ONCE_EACH, "call 3", "after"]);
    });

    it(`${mode}, warm: one graph object continues the same way (it counts 2)`, async () => {
      const store = await fx.open();
      const on = { fail: false };
      const g = stableGraph(failingOn(store, "step_committed", on));
      await g.invoke({}, { threadId: "t" });
      on.fail = true;
      await expect(g.invoke({}, { threadId: "t", durability: mode })).rejects.toThrow(/^lost$/);
      on.fail = false;
      const r = await g.invoke(null, { threadId: "t" });
      expect(r.state.log).toEqual(ONCE_EACH);
      expect(await childState(store)).toEqual({ calls: 2, answers: [] });
    });
  }

  it('"exit": the parent run is lost whole; the next call counts 2, cold and warm', async () => {
    for (const warm of [false, true]) {
      const store = await fx.open();
      const on = { fail: false };
      const shared = stableGraph(failingOn(store, "run_finished", on));
      const g = () => (warm ? shared : stableGraph(failingOn(store, "run_finished", on)));
      await g().invoke({}, { threadId: "t" });
      on.fail = true;
      await expect(g().invoke({}, { threadId: "t", durability: "exit" })).rejects.toThrow(/^lost$/);
      on.fail = false;
      // The parent is as before the run; the child wrote its run, which the parent never knew.
      expect((await g().getState("t")).state.log).toEqual(["call 1", "after"]);
      expect(await childRuns(store)).toBe(2);
      const r = await g().invoke({}, { threadId: "t", durability: "exit" });
      expect(r.state.log).toEqual(ONCE_EACH);
      expect(await childState(await fx.reopen(store))).toEqual({ calls: 2, answers: [] });
    }
  });

  it('"exit": a first call the parent lost whole leaves the child empty for the next one', async () => {
    const store = await fx.open();
    const on = { fail: true };
    await expect(
      stableGraph(failingOn(store, "run_finished", on)).invoke(
        {},
        { threadId: "t", durability: "exit" },
      ),
    ).rejects.toThrow(/^lost$/);
    expect(await store.getBranch("t", "main")).toBeNull();
    expect(await childRuns(store)).toBe(1);
    const r = await stableGraph(await fx.reopen(store)).invoke({}, { threadId: "t" });
    expect(r.state.log).toEqual(["call 1", "after"]);
    expect(await childState(await fx.reopen(store))).toEqual({ calls: 1, answers: [] });
  });

  it("a child that paused, resumed in a run whose commit is lost, is asked again and takes the new answer", async () => {
    const store = await fx.open();
    const ask = (s: StateStore) => stableGraph(s, { ask: true });
    const first = await ask(store).invoke({}, { threadId: "t" });
    expect(first.interrupts.map((i) => [i.key, i.value])).toEqual([["0:0/q", "answer for call 1"]]);
    await ask(store).invoke(null, { threadId: "t", resume: { "0:0/q": "a1" } });
    const second = await ask(store).invoke({}, { threadId: "t" });
    expect(second.interrupts.map((i) => [i.key, i.value])).toEqual([
      ["2:0/q", "answer for call 2"],
    ]);
    const on = { fail: true };
    await expect(
      ask(failingOn(store, "step_committed", on)).invoke(null, {
        threadId: "t",
        resume: { "2:0/q": "lost" },
      }),
    ).rejects.toThrow(/^lost$/);
    // The child took the answer and finished; the parent's run failed in the superstep it
    // resumed, so its log has the answer refused (resume-base.ts): it still waits for one.
    expect(await childState(store, true)).toEqual({ calls: 2, answers: ["a1", "lost"] });
    const cold = await fx.reopen(store);
    expect((await ask(cold).getState("t")).interrupts.map((i) => i.key)).toEqual(["2:0/q"]);
    const again = await ask(cold).invoke(null, { threadId: "t" });
    expect(again.status).toBe("interrupted");
    expect(again.interrupts.map((i) => [i.key, i.value])).toEqual([["2:0/q", "answer for call 2"]]);
    expect(await childState(cold, true)).toEqual({ calls: 2, answers: ["a1"] });
    const r = await ask(await fx.reopen(store)).invoke(null, {
      threadId: "t",
      resume: { "2:0/q": "a2" },
    });
    expect(r.status).toBe("completed");
    expect(r.state.log).toEqual(["call 1 a1", "after", "call 2 a2", "after"]);
    expect(await childState(cold, true)).toEqual({ calls: 2, answers: ["a1", "a2"] });
    expect((await childTypes(cold)).filter((t) => t === "rolled_back")).toEqual(["rolled_back"]);
  });

  it("a child that paused and was resumed in a committed run is not rewound", async () => {
    const store = await fx.open();
    const ask = (s: StateStore) => stableGraph(s, { ask: true });
    await ask(store).invoke({}, { threadId: "t" });
    await ask(store).invoke(null, { threadId: "t", resume: { "0:0/q": "a1" } });
    await ask(store).invoke({}, { threadId: "t" });
    const r = await ask(await fx.reopen(store)).invoke(null, {
      threadId: "t",
      resume: { "2:0/q": "a2" },
    });
    expect(r.state.log).toEqual(["call 1 a1", "after", "call 2 a2", "after"]);
    expect(await childTypes(store)).not.toContain("rolled_back");
  });
});

const root = fileURLToPath(new URL("../..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/stable-kill-child.ts", import.meta.url));

function runKilled(kind: string, target: string, mode: Durability) {
  const p = spawn(process.execPath, ["--import", "tsx", fixture, kind, target, mode], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  p.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => p.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
}

describeStores(
  "a stable child's call killed (SIGKILL) after the child's write, before the parent's commit",
  (fx) => {
    for (const mode of ["sync", "async", "exit"] as const) {
      it(`"${mode}": a new process continues, and the child counts each call once`, async () => {
        const store = await fx.open();
        const kind = fx.kind as "sqlite" | "postgres";
        const target =
          kind === "sqlite"
            ? (store as SqliteStateStore).path
            : (store as PostgresStateStore).schema;
        await stableGraph(store).invoke({}, { threadId: "t" });
        const exit = await runKilled(kind, target, mode);
        expect({ code: exit.code, signal: exit.signal, stderr: exit.stderr }).toEqual({
          code: null,
          signal: "SIGKILL",
          stderr: "",
        });
        const cold = await fx.reopen(store);
        // The child's run was written (its run_finished), the parent's commit was not.
        expect((await childTypes(cold)).at(-1)).toBe("run_finished");
        expect(await childRuns(cold)).toBe(2);
        const parent = await stableGraph(cold).getState("t");
        expect(parent.state.log).toEqual(["call 1", "after"]);
        // "sync" stored the run's start (the call is pending); "exit" nothing of it.
        if (mode === "sync") expect(parent.next).toEqual(["sub"]);
        if (mode === "exit") expect(parent.next).toEqual([]);
        const r =
          parent.next.length > 0
            ? await stableGraph(cold).invoke(null, { threadId: "t" })
            : await stableGraph(cold).invoke({}, { threadId: "t" });
        expect(r.state.log).toEqual(ONCE_EACH);
        expect(await childState(await fx.reopen(store))).toEqual({ calls: 2, answers: [] });
      });
    }
  },
  ["sqlite", "postgres"],
);
