/**
 * Issue 20, item 3: a run on PostgreSQL sends one statement (one round trip) per superstep —
 * the append, the sequence check, the lease's extension and the stop request together, as a
 * named prepared statement — and nothing else while it runs. Counted on a real pool.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConcurrentWriteError, LeaseLostError } from "../../errors/index.js";
import { defineState, END, Graph, node, START, when } from "../../index.js";
import type { NewEvent } from "../../stores/index.js";
import { PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const prefix = `nodestep_rt_${randomBytes(4).toString("hex")}`;
let n = 0;
const pools: pg.Pool[] = [];
const stores: PostgresStateStore[] = [];

/** A pool that records the text (or prepared name) of every statement sent through it. */
function countingPool(): { pool: pg.Pool; sent: string[] } {
  const pool = new pg.Pool({ connectionString: URL });
  pools.push(pool);
  const sent: string[] = [];
  const label = (q: unknown): string =>
    typeof q === "string"
      ? q.replace(/\s+/g, " ").trim()
      : `prepared ${(q as { name: string }).name}: ${(q as { text: string }).text.replace(/\s+/g, " ").trim()}`;
  // Every connection the pool makes (pool.query runs on one too) counts what it sends.
  pool.on("connect", (client) => {
    const cq = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (q: unknown, ...rest: unknown[]) => {
      sent.push(label(q));
      return cq(q, ...rest);
    };
  });
  return { pool, sent };
}

function open(): { store: PostgresStateStore; sent: string[]; schema: string } {
  const { pool, sent } = countingPool();
  const schema = `${prefix}_${++n}`;
  const store = new PostgresStateStore({ pool, schema });
  stores.push(store);
  return { store, sent, schema };
}

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  const admin = new pg.Pool({ connectionString: URL, max: 1 });
  const left = await admin.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
    [`${prefix}%`],
  );
  for (const r of left.rows) await admin.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  await admin.end();
  for (const p of pools) await p.end();
});

const State = defineState({ count: z.number().default(0), limit: z.number().default(0) });
type S = typeof State.State;

/** A graph of `limit` supersteps (one node looping on itself), on `store`. */
function loop(store: PostgresStateStore): Graph<typeof State> {
  const step = node((s: S) => ({ count: s.count + 1 }), { name: "step" });
  return new Graph(State, { name: "loop", stateStore: store, maxSteps: 1_000 }).flow(
    START.to(step),
    step.to(when((s: S) => s.count < s.limit, step, { otherwise: END })),
  );
}

const isAppend = (q: string) => q.startsWith("prepared nodestep_") && q.includes("WITH lease AS");

describe("PostgreSQL round trips per superstep", () => {
  it("sends exactly one statement per superstep: the leased append", async () => {
    const { store, sent } = open();
    await store.ready();
    const graph = loop(store);
    const counts: Record<number, { all: number; appends: number }> = {};
    for (const limit of [10, 30]) {
      sent.length = 0;
      const { state } = await graph.invoke({ limit }, { threadId: `t${limit}` });
      expect(state.count).toBe(limit);
      counts[limit] = { all: sent.length, appends: sent.filter(isAppend).length };
    }
    // 20 more supersteps: 20 more statements, every one the append.
    expect(counts[30]!.all - counts[10]!.all).toBe(20);
    expect(counts[30]!.appends - counts[10]!.appends).toBe(20);
    // A run of 10 supersteps on a new thread: the lease (try-lock and insert in one
    // statement), the load (branch; no snapshot is asked for a new thread; read), the appends
    // (run_started, 10 commits, run_finished), the release (delete and unlock in one).
    expect(counts[10]).toEqual({ all: 16, appends: 12 });
    expect(sent.filter((q) => !isAppend(q)).map((q) => q.split(" ").slice(0, 4).join(" "))).toEqual(
      [
        "WITH lock AS (SELECT",
        "SELECT branch_id, parent_branch, parent_seq,",
        "WITH RECURSIVE chain AS",
        "WITH gone AS (DELETE",
      ],
    );
    // No stop-request poll and no lease renewal were sent: each append answers both.
    expect(sent.filter((q) => q.startsWith("SELECT stop_by"))).toEqual([]);
    expect(sent.filter((q) => q.startsWith("UPDATE") && q.includes("expires_at"))).toEqual([]);
  });

  it("sends the append as a named statement, prepared once per connection", async () => {
    const { store, sent } = open();
    const graph = loop(store);
    await graph.invoke({ limit: 5 }, { threadId: "p" });
    const names = new Set(sent.filter(isAppend).map((q) => q.split(":")[0]));
    // Three shapes: first write of a thread (insert of the branch), one event, several events.
    expect(names.size).toBeLessThanOrEqual(3);
    for (const name of names) expect(name).toMatch(/^prepared nodestep_[0-9a-f]{24}$/);
  });
});

describe("appendLeased", () => {
  const ev = (data: NewEvent["data"]): NewEvent => ({
    type: "task_finished",
    runId: "r1",
    step: 0,
    taskId: "k",
    node: "a",
    data,
  });

  it("writes and extends the lease for its owner, and answers the stop request", async () => {
    const { store } = open();
    expect(await store.acquireLease("t", "main", "r1", 60_000)).toBe(true);
    const a = await store.appendLeased("t", "main", [ev(1), ev(2)], 0, {
      owner: "r1",
      ttlMs: 60_000,
    });
    expect(a.held).toBe(true);
    expect(a.stopBy).toBe(null);
    expect(a.events.map((e) => [e.id, e.data])).toEqual([
      ["t/main/1", 1],
      ["t/main/2", 2],
    ]);
    expect(await store.requestStop("t", "main", "r2")).toBe("r1");
    const b = await store.appendLeased("t", "main", [ev(3)], 2, { owner: "r1", ttlMs: 60_000 });
    expect([b.held, b.stopBy, b.events.map((e) => e.seq)]).toEqual([true, "r2", [3]]);
    expect((await store.read("t", "main")).map((e) => e.data)).toEqual([1, 2, 3]);
    await store.releaseLease("t", "main", "r1");
  });

  it("writes nothing when another owner holds the lease, or nobody does", async () => {
    const { store } = open();
    await store.append("t", "main", [ev(1)], 0);
    const none = await store.appendLeased("t", "main", [ev(2)], 1, { owner: "r1", ttlMs: 1_000 });
    expect(none).toEqual({ events: [], held: false, stopBy: null });
    expect(await store.acquireLease("t", "main", "other", 60_000)).toBe(true);
    const taken = await store.appendLeased("t", "main", [ev(2)], 1, { owner: "r1", ttlMs: 1_000 });
    expect(taken).toEqual({ events: [], held: false, stopBy: null });
    expect((await store.read("t", "main")).map((e) => e.data)).toEqual([1]);
    expect((await store.getBranch("t", "main"))?.lastSeq).toBe(1);
    await store.releaseLease("t", "main", "other");
  });

  it("throws ConcurrentWriteError at a stale seq, writing nothing", async () => {
    const { store } = open();
    expect(await store.acquireLease("t", "main", "r1", 60_000)).toBe(true);
    await store.appendLeased("t", "main", [ev(1)], 0, { owner: "r1", ttlMs: 60_000 });
    const e = await store
      .appendLeased("t", "main", [ev(2)], 0, { owner: "r1", ttlMs: 60_000 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConcurrentWriteError);
    expect((e as Error).message).toBe(
      'Branch "main" of thread "t" is at seq 1, not 0: another writer appended since this one read it. Nothing was written; reload the branch and retry.',
    );
    expect((await store.read("t", "main")).map((e) => e.data)).toEqual([1]);
    await store.releaseLease("t", "main", "r1");
  });

  it("refuses an empty owner and a ttl ≤ 0", async () => {
    const { store } = open();
    await expect(
      store.appendLeased("t", "main", [ev(1)], 0, { owner: "", ttlMs: 1_000 }),
    ).rejects.toThrow(/owner/);
    await expect(
      store.appendLeased("t", "main", [ev(1)], 0, { owner: "r1", ttlMs: 0 }),
    ).rejects.toThrow(/ttl/i);
  });

  it("a run whose lease another writer took stops at its next append with LeaseLostError", async () => {
    const { store, schema } = open();
    await store.ready();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const step = node(
      async (s: S) => {
        if (s.count === 2) await gate;
        return { count: s.count + 1 };
      },
      { name: "step" },
    );
    const graph = new Graph(State, { name: "loop", stateStore: store }).flow(
      START.to(step),
      step.to(when((x: S) => x.count < x.limit, step, { otherwise: END })),
    );
    const run = graph.invoke({ limit: 5 }, { threadId: "lost" });
    // While the run waits in its third superstep, another writer takes the lease row over.
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    for (let i = 0; i < 200; i++) {
      const r = await admin.query(`SELECT owner FROM "${schema}".leases WHERE thread_id = 'lost'`);
      if (r.rowCount === 1 && ((await store.getBranch("lost", "main"))?.lastSeq ?? 0) >= 3) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await admin.query(`UPDATE "${schema}".leases SET owner = 'intruder' WHERE thread_id = 'lost'`);
    await admin.end();
    const before = (await store.getBranch("lost", "main"))!.lastSeq;
    release();
    await expect(run).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.getBranch("lost", "main"))!.lastSeq).toBe(before);
  });
});
