/**
 * `deleteThread` racing `createBranch` on PostgreSQL: a fork made while the thread is being
 * deleted must either be deleted with it or fail with `UnknownEventError`, never outlive it as
 * a branch whose parent is gone (it would read a later thread of the same id as its history).
 *
 * The race is made deterministic: another session holds an uncommitted row of the fork's key,
 * so the fork's statement waits on it after reading its parent event; the delete is started
 * while it waits, and the other session rolls back once the delete is waiting or done.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ev } from "../../stores/delete-fork.fixture.js";
import { PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const schema = `nodestep_dfr_${randomBytes(4).toString("hex")}`;
const admin = new pg.Pool({ connectionString: URL, max: 3 });
const stores: PostgresStateStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

function open(): PostgresStateStore {
  const s = new PostgresStateStore({ connectionString: URL, schema });
  stores.push(s);
  return s;
}

/** Wait until a session of the test database waits on a lock while running `like`. */
async function waiting(like: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const r = await admin.query(
      "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
      [like],
    );
    if ((r.rowCount ?? 0) > 0) return;
    await new Promise((f) => setTimeout(f, 10));
  }
  throw new Error(`no session waits on ${like}`);
}

describe("deleteThread racing createBranch (PostgreSQL)", () => {
  it("the fork is deleted with the thread; a new thread of the id has no branch but main", async () => {
    const a = open();
    const b = open();
    await a.append("t1", "main", [ev, ev, ev], 0);
    const blocker = await admin.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(
        `INSERT INTO "${schema}".branches (thread_id, branch_id, parent_branch, parent_seq, last_seq) VALUES ('t1', 'fk', 'main', 2, 2)`,
      );
      const fork = b.createBranch("t1", "t1/main/2", "fk").then(
        (info) => info.branchId,
        (e: Error) => e.name,
      );
      await waiting("%INSERT INTO%branches%");
      const deleted = a.deleteThread("t1");
      // The delete either finishes at once (it saw no fork) or waits for the fork's statement.
      await Promise.race([deleted, new Promise((f) => setTimeout(f, 300))]);
      await blocker.query("ROLLBACK");
      expect(await deleted).toEqual(["t1"]);
      expect(["fk", "UnknownEventError"]).toContain(await fork);
    } finally {
      blocker.release();
    }
    expect(await a.listBranches("t1")).toEqual([]);
    expect(await a.listThreads()).toEqual([]);
    await a.append("t1", "main", [ev], 0);
    expect((await a.listBranches("t1")).map((x) => x.branchId)).toEqual(["main"]);
  });
});
