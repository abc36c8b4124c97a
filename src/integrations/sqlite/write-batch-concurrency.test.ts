import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RunStoppedError, StateStoreError } from "../../errors/index.js";
import { Graph, node, START } from "../../graph/index.js";
import { END } from "../../graph/routing.js";
import { defineState, reducer } from "../../state/define-state.js";
import { SqliteStateStore } from "./index.js";
import { expectAckedKept, startWriters } from "./write-batch.fixture.js";

vi.setConfig({ testTimeout: 120_000 });
const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-batchc-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

function askGraph(store: SqliteStateStore) {
  const ask = node(
    (_s: { log: string[] }, ctx) => ({ log: [`answer=${String(ctx.interrupt("go?"))}`] }),
    { name: "ask" },
  );
  const other = node(() => ({ log: ["other"] }), { name: "other" });
  const last = node(() => ({ log: ["last"] }), { name: "last" });
  return new Graph(State, { name: "ask", stateStore: store }).flow(
    START.to([ask, other]),
    ask.to(last),
    other.to(last),
    last.to(END),
  );
}

describe("SqliteStateStore group commit under load", () => {
  it("runs 60 threads at once with an interrupt each, resumes them at once, and reads every one back cold", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const g = askGraph(store);
    const ids = Array.from({ length: 60 }, (_, i) => `th${i}`);
    const paused = await Promise.all(ids.map((t) => g.invoke({ log: [t] }, { threadId: t })));
    expect(paused.map((p) => p.status)).toEqual(ids.map(() => "interrupted"));
    const done = await Promise.all(
      ids.map((t, i) =>
        g.invoke(null, { threadId: t, resume: { [paused[i]!.interrupts[0]!.key]: i } }),
      ),
    );
    expect(done.map((d) => d.state)).toEqual(
      ids.map((t, i) => ({ log: [t, `answer=${i}`, "other", "last"] })),
    );
    const cold = new SqliteStateStore({ path });
    const cg = askGraph(cold);
    for (const [i, t] of ids.entries()) {
      expect((await cg.getState(t)).state).toEqual({ log: [t, `answer=${i}`, "other", "last"] });
      const events = await cold.read(t, "main");
      expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    }
    await store.close();
    await cold.close();
  });

  it("runs two runs on one thread through one store object: enqueue waits, interrupt stops the first, rollback undoes it", async () => {
    const store = new SqliteStateStore({ path: fresh() });
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    let calls = 0;
    const one = node(
      async () => {
        if (calls++ === 0) {
          entered();
          await new Promise<void>((r) => {
            release = r;
          });
        }
        return { log: ["one"] };
      },
      { name: "one" },
    );
    const two = node(() => ({ log: ["two"] }), { name: "two" });
    const make = () =>
      new Graph(State, { name: "busy", stateStore: store }).flow(
        START.to(one),
        one.to(two),
        two.to(END),
      );
    const first = make().invoke({ log: ["a"] }, { threadId: "t" });
    await inside;
    const second = make().invoke({ log: ["b"] }, { threadId: "t", onBusy: "enqueue" });
    await new Promise((r) => setTimeout(r, 50));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.state).toEqual({ log: ["a", "one", "two"] });
    expect(b.state).toEqual({ log: ["a", "one", "two", "b", "one", "two"] });
    // interrupt
    calls = 0;
    const inside2 = new Promise<void>((r) => {
      entered = r;
    });
    const third = make()
      .invoke({ log: ["c"] }, { threadId: "u" })
      .catch((e: unknown) => e);
    await inside2;
    const fourth = make().invoke({ log: ["d"] }, { threadId: "u", onBusy: "interrupt" });
    await new Promise((r) => setTimeout(r, 50));
    release();
    const [stopped, d] = await Promise.all([third, fourth]);
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect(d.state).toEqual({ log: ["c", "one", "d", "one", "two"] });
    // rollback: the stopped run's work is undone; the new input runs on the state before it.
    calls = 0;
    const inside3 = new Promise<void>((r) => {
      entered = r;
    });
    const fifth = make()
      .invoke({ log: ["e"] }, { threadId: "u" })
      .catch((e: unknown) => e);
    await inside3;
    const sixth = make().invoke({ log: ["f"] }, { threadId: "u", onBusy: "rollback" });
    await new Promise((r) => setTimeout(r, 50));
    release();
    const [rolled, f] = await Promise.all([fifth, sixth]);
    expect(rolled).toBeInstanceOf(RunStoppedError);
    expect(f.state).toEqual({ log: ["c", "one", "d", "one", "two", "f", "one", "two"] });
    const cold = new SqliteStateStore({ path: store.path });
    const coldGraph = new Graph(State, { name: "busy", stateStore: cold }).flow(
      START.to(one),
      one.to(two),
      two.to(END),
    );
    expect((await coldGraph.getState("u")).state).toEqual(f.state);
    await cold.close();
    await store.close();
  });

  it("keeps every acknowledged append of two writer processes on different threads of one file, both killed", async () => {
    const path = fresh();
    new Database(path).close();
    await new SqliteStateStore({ path }).close();
    const writers = startWriters(path, ["a", "b"], 4);
    const four = [0, 1, 2, 3];
    await writers.killWhen((acked) => {
      const total = [...acked.values()].reduce((x, y) => x + y, 0);
      const a = four.some((i) => (acked.get(`a${i}`) ?? 0) > 300);
      const b = four.some((i) => (acked.get(`b${i}`) ?? 0) > 300);
      return a && b && total > 3000;
    });
    const threads = ["a", "b"].flatMap((p) => four.map((i) => `${p}${i}`));
    await expectAckedKept(path, threads, writers.acked);
  });

  it("rejects a whole batch of leases and stop requests when the write lock is held past busyTimeoutMs, and leaves them as they were", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path, busyTimeoutMs: 30 });
    expect(await store.acquireLease("t", "main", "a", 60_000)).toBe(true);
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    const results = await Promise.allSettled([
      store.releaseLease("t", "main", "a"),
      store.acquireLease("t", "main", "b", 60_000),
      store.requestStop("t", "main", "ops"),
      store.renewLease("t", "main", "a", 10),
    ]);
    other.exec("ROLLBACK");
    other.close();
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StateStoreError);
      expect((r as PromiseRejectedResult).reason.message).toBe(
        `SQLite state store ${path} failed on thread "t": database is locked. Another connection (another process, or another store object in this one) held the write lock too long, or a store opened with exclusive: true holds the file; retry or raise busyTimeoutMs.`,
      );
    }
    expect(await store.stopRequested("t", "main", "a")).toBeNull();
    expect(await store.acquireLease("t", "main", "b", 60_000)).toBe(false);
    expect(await store.requestStop("t", "main", "ops")).toBe("a");
    await store.close();
  });
});
