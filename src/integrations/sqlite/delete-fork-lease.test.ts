/**
 * `deleteThread` on SQLite and a fork made by another connection after it listed the
 * branches, whose lease a run then takes: the delete must refuse with `ThreadBusyError` (the
 * fork is running), not delete the fork under the run; a fork no run holds is deleted with the
 * thread (the delete starts over). (Its transaction deleted every branch of the thread, the
 * fork's too, and said it deleted the thread.) As on PostgreSQL (delete-fork-lease.test.ts there).
 *
 * Deterministic: the store's `acquireLease` is wrapped so that, when the delete takes its
 * first lease (after its listing, before its transaction), the fork is made and a run's lease
 * taken on it through another store object on the file (as another process would).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadBusyError, UnknownEventError } from "../../errors/index.js";
import type { NewEvent } from "../../stores/index.js";
import { MAX_DELETE_ATTEMPTS } from "../../stores/internal.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-dfl-"));
const path = join(dir, "store.db");
const stores: SqliteStateStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(): SqliteStateStore {
  const s = new SqliteStateStore({ path });
  stores.push(s);
  return s;
}

const ev: NewEvent = {
  type: "state_updated",
  runId: "r1",
  step: null,
  taskId: null,
  node: null,
  data: { x: 1 },
};

/** Make `store.acquireLease` run `before` once, the first time the deletion calls it. */
function onFirstLease(store: SqliteStateStore, before: () => Promise<void>): void {
  const own = store.acquireLease.bind(store);
  let done = false;
  store.acquireLease = async (threadId, branchId, owner, ttlMs) => {
    if (!done && owner.startsWith("delete-")) {
      done = true;
      await before();
    }
    return own(threadId, branchId, owner, ttlMs);
  };
}

describe("deleteThread and a fork another connection made after its listing (SQLite)", () => {
  it("refuses with ThreadBusyError when a run holds the fork's lease; the thread stays whole", async () => {
    const a = open();
    const b = open();
    await a.append("t1", "main", [ev, ev, ev], 0);
    onFirstLease(a, async () => {
      await b.createBranch("t1", "t1/main/2", "fk");
      expect(await b.acquireLease("t1", "fk", "run-1", 60_000)).toBe(true);
    });
    const err = await a.deleteThread("t1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadBusyError);
    expect([(err as ThreadBusyError).message, (err as ThreadBusyError).branchId]).toEqual([
      'Thread "t1" (branch "fk") is running; it cannot be deleted until the run ends (or its lease expires)',
      "fk",
    ]);
    expect((await a.listBranches("t1")).map((x) => [x.branchId, x.lastSeq])).toEqual([
      ["main", 3],
      ["fk", 2],
    ]);
    // The run goes on: it writes to its fork, then ends; the delete then succeeds.
    expect((await b.append("t1", "fk", [ev], 2)).map((e) => e.id)).toEqual(["t1/fk/3"]);
    await b.releaseLease("t1", "fk", "run-1");
    expect(await a.deleteThread("t1")).toEqual(["t1"]);
    expect(await a.listBranches("t1")).toEqual([]);
    expect(await b.listBranches("t1")).toEqual([]);
  });

  it("deletes a fork made after its listing that no run holds (it starts over)", async () => {
    const a = open();
    const b = open();
    await a.append("t2", "main", [ev, ev], 0);
    onFirstLease(a, async () => {
      await b.createBranch("t2", "t2/main/1", "idle");
    });
    expect(await a.deleteThread("t2")).toEqual(["t2"]);
    expect(await b.listBranches("t2")).toEqual([]);
    expect(await b.read("t2", "main")).toEqual([]);
  });

  it(`gives up with ThreadBusyError when forks keep appearing (${MAX_DELETE_ATTEMPTS} attempts)`, async () => {
    const a = open();
    const b = open();
    await a.append("t3", "main", [ev], 0);
    const own = a.acquireLease.bind(a);
    let n = 0;
    a.acquireLease = async (threadId, branchId, owner, ttlMs) => {
      // Before each attempt's first lease (its listing done), one more fork.
      if (owner.startsWith("delete-") && branchId === "main") {
        await b.createBranch("t3", "t3/main/1", `f${n++}`);
      }
      return own(threadId, branchId, owner, ttlMs);
    };
    const err = await a.deleteThread("t3").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ThreadBusyError);
    expect((err as Error).message).toBe(
      'Thread "t3" got new branches while being deleted, 3 times; nothing was deleted',
    );
    expect((await a.listBranches("t3")).map((x) => x.branchId)).toEqual(["main", "f0", "f1", "f2"]);
  });

  it("returns [] when another connection deleted the thread after its listing", async () => {
    const a = open();
    const b = open();
    await a.append("t4", "main", [ev], 0);
    onFirstLease(a, async () => {
      expect(await b.deleteThread("t4")).toEqual(["t4"]);
    });
    expect(await a.deleteThread("t4")).toEqual([]);
    expect(await a.listBranches("t4")).toEqual([]);
  });

  it("createBranch against a deletion another process commits meanwhile: no fork without its thread", async () => {
    const a = open();
    await a.append("t5", "main", [ev, ev], 0);
    // Another process deletes the thread in a write transaction it holds for a second, then
    // commits; createBranch is called while it holds the lock.
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const db = new (require("better-sqlite3"))(process.argv[1]);
db.exec("BEGIN IMMEDIATE; DELETE FROM events WHERE thread_id = 't5'; DELETE FROM branches WHERE thread_id = 't5'");
process.stdout.write("ready\\n");
setTimeout(() => { db.exec("COMMIT"); db.close(); }, 1000);`,
        path,
      ],
      {
        cwd: fileURLToPath(new URL("../../..", import.meta.url)),
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    const made = await a.createBranch("t5", "t5/main/1", "fk").catch((e: unknown) => e);
    await new Promise((resolve) => child.once("exit", resolve));
    expect(made).toBeInstanceOf(UnknownEventError);
    expect(await a.listBranches("t5")).toEqual([]);
    expect((await a.listThreads()).filter((t) => t.threadId === "t5")).toEqual([]);
  });
});
