/**
 * Issue 13, items 8 and 9 on PostgreSQL: a lease is tied to its writer's database session, so
 * a writer whose connection died is taken over at once (it waited out the whole lease), and
 * the writer learns it lost the lease; a deleted thread leaves no row (checked by query).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LeaseLostError, StateStoreError } from "../../errors/index.js";
import { defineState, END, Graph, node, START } from "../../index.js";
import type { NewEvent } from "../../stores/index.js";
import { PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const prefix = `nodestep_dl_${randomBytes(4).toString("hex")}`;
let n = 0;
const admin = new pg.Pool({ connectionString: URL, max: 2 });
const stores: PostgresStateStore[] = [];

function open(schema = `${prefix}_${++n}`): PostgresStateStore {
  const s = new PostgresStateStore({ connectionString: URL, schema });
  stores.push(s);
  return s;
}

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  const left = await admin.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
    [`${prefix}%`],
  );
  for (const r of left.rows) await admin.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
  await admin.end();
});

function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: "k", node: "a", data };
}

/** The advisory locks held on the lease of `thread`/`branch` of `schema` (key as the store names it). */
const LOCKS_OF = `FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1, 0)`;

function lockName(schema: string, thread: string, branch: string): string {
  return JSON.stringify(["nodestep.lease", schema, thread, branch]);
}

/** End the session holding the lease lock of `thread`/`branch` (as a crash would); how many were ended. */
async function killLeaseSession(schema: string, thread: string, branch: string): Promise<number> {
  const res = await admin.query(`SELECT pg_terminate_backend(l.pid, 5000) ${LOCKS_OF}`, [
    lockName(schema, thread, branch),
  ]);
  return res.rowCount ?? 0;
}

async function locks(schema: string, thread: string, branch: string): Promise<number> {
  const res = await admin.query(`SELECT 1 ${LOCKS_OF}`, [lockName(schema, thread, branch)]);
  return res.rowCount ?? 0;
}

describe("PostgresStateStore leases tied to the writer's session", () => {
  it("takes over at once a lease whose session ended; the old writer's renewal is refused", async () => {
    const a = open();
    const b = open(a.schema);
    expect(await a.acquireLease("t", "main", "run-a", 60_000)).toBe(true);
    expect(await b.acquireLease("t", "main", "run-b", 60_000)).toBe(false);
    expect(await killLeaseSession(a.schema, "t", "main")).toBe(1);
    expect(await b.acquireLease("t", "main", "run-b", 60_000)).toBe(true);
    const renewal = await a.acquireLease("t", "main", "run-a", 60_000).catch((e: unknown) => e);
    expect(renewal === false || renewal instanceof StateStoreError).toBe(true);
    expect(await a.acquireLease("t", "main", "run-a", 60_000)).toBe(false);
    // run-b holds it now, through its own session.
    expect(await a.acquireLease("t", "main", "run-c", 60_000)).toBe(false);
  });

  it("stops a run at its next append once the session that held its lease ended", async () => {
    const a = open();
    const State = defineState({ n: z.number().default(0) });
    let before: boolean | null = null;
    const work = node(
      async () => {
        const runId = (await a.read("t", "main"))[0]!.runId;
        before = a.leaseLost("t", "main", runId);
        expect(await killLeaseSession(a.schema, "t", "main")).toBe(1);
        // The store learns of it from the connection's error event.
        while (!a.leaseLost("t", "main", runId)) await new Promise((r) => setTimeout(r, 5));
        return { n: 1 };
      },
      { name: "work" },
    );
    const after = node(() => ({ n: 2 }), { name: "after" });
    const g = new Graph(State, { stateStore: a, leaseTtlMs: 60_000 }).flow(
      START.to(work),
      work.to(after),
      after.to(END),
    );
    const e = (await g.invoke({}, { threadId: "t" }).catch((x: unknown) => x)) as Error;
    const events = await a.read("t", "main");
    expect(before).toBe(false);
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(e.message).toBe(
      `Run "${events[0]!.runId}" lost the lease of thread "t" (branch "main"): the store's session that held it ended. It stopped writing; the thread is as its last stored event says.`,
    );
    expect(events.map((x) => x.type)).toEqual(["run_started"]);
  });

  it("stops a run at once when its lease session ends: the node's signal fires, long before a renewal", async () => {
    const a = open();
    const State = defineState({ n: z.number().default(0) });
    let killedAt = 0;
    let abortedAfterMs = -1;
    let reason: unknown = null;
    const told: string[][] = [];
    const stop = a.onLeaseLost((t, b, owner) => told.push([t, b, owner]));
    const work = node(
      async (_s, ctx) => {
        killedAt = performance.now();
        expect(await killLeaseSession(a.schema, "t", "main")).toBe(1);
        // A long call that stops only when the run's signal fires (30 s; the timer that would
        // otherwise notice checks every leaseTtlMs / 3 = 20 s).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 30_000);
          const stopped = () => {
            clearTimeout(timer);
            abortedAfterMs = performance.now() - killedAt;
            reason = ctx.signal.reason;
            resolve();
          };
          if (ctx.signal.aborted) stopped();
          else ctx.signal.addEventListener("abort", stopped);
        });
        return { n: 1 };
      },
      { name: "work" },
    );
    const g = new Graph(State, { stateStore: a, leaseTtlMs: 60_000 }).flow(
      START.to(work),
      work.to(END),
    );
    const e = (await g.invoke({}, { threadId: "t" }).catch((x: unknown) => x)) as Error;
    const endedAfterMs = performance.now() - killedAt;
    // The run may end before the node's await of the kill returns: then the node finds its
    // signal already fired when it goes on.
    for (let i = 0; i < 200 && abortedAfterMs < 0; i++) await new Promise((r) => setTimeout(r, 10));
    const events = await a.read("t", "main");
    const runId = events[0]!.runId;
    expect(e).toBeInstanceOf(LeaseLostError);
    expect(reason).toBe(e);
    expect(endedAfterMs).toBeLessThan(3_000);
    expect(e.message).toBe(
      `Run "${runId}" lost the lease of thread "t" (branch "main"): the store's session that held it ended. It stopped writing; the thread is as its last stored event says.`,
    );
    expect(abortedAfterMs).toBeGreaterThanOrEqual(0);
    expect(abortedAfterMs).toBeLessThan(3_000);
    expect(told).toEqual([["t", "main", runId]]);
    expect(events.map((x) => x.type)).toEqual(["run_started"]);
    stop();
  }, 20_000);

  it("gives the session back when no lease is held, and closing ends the locks", async () => {
    const a = open();
    const b = open(a.schema);
    expect(await a.acquireLease("t", "main", "run-a", 60_000)).toBe(true);
    expect(await a.acquireLease("t", "alt", "run-a", 60_000)).toBe(true);
    expect(await locks(a.schema, "t", "main")).toBe(1);
    expect(await locks(a.schema, "t", "alt")).toBe(1);
    await a.releaseLease("t", "alt", "run-a");
    expect(await locks(a.schema, "t", "alt")).toBe(0);
    expect(await locks(a.schema, "t", "main")).toBe(1);
    // A closed store's session is gone: its lease is taken over without waiting 60 s.
    await a.close();
    expect(await locks(a.schema, "t", "main")).toBe(0);
    expect(await b.acquireLease("t", "main", "run-b", 60_000)).toBe(true);
  });

  it("waits for the lease's time to live when the holder wrote no lock (an older writer)", async () => {
    const a = open();
    await a.ready();
    await admin.query(
      `INSERT INTO "${a.schema}".leases (thread_id, branch_id, owner, expires_at) VALUES ('t', 'main', 'old', $1)`,
      [Date.now() + 60_000],
    );
    expect(await a.acquireLease("t", "main", "run-a", 60_000)).toBe(false);
  });
});

describe("PostgresStateStore deleteThread", () => {
  it("leaves no row of the thread (or its children, when asked) in any table", async () => {
    const s = open();
    await s.append("p", "main", [ev(1), ev(2)], 0);
    await s.createBranch("p", "p/main/1", "alt");
    await s.append("p", "alt", [ev("alt")], 1);
    await s.saveSnapshot("p", "main", { seq: 2, data: "snap" });
    await s.append("p:sub", "main", [ev("child")], 0);
    await s.append("other", "main", [ev("other")], 0);
    expect(await s.acquireLease("p", "alt", "old-run", 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(await s.deleteThread("p", { children: true })).toEqual(["p", "p:sub"]);
    for (const table of ["events", "branches", "snapshots", "leases"]) {
      const res = await admin.query(
        `SELECT thread_id FROM "${s.schema}".${table} WHERE thread_id = 'p' OR thread_id LIKE 'p:%'`,
      );
      expect(res.rows, table).toEqual([]);
    }
    const others = await admin.query(`SELECT thread_id FROM "${s.schema}".events`);
    expect(others.rows).toEqual([{ thread_id: "other" }]);
  });
});
