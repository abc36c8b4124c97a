/**
 * Issue 13, items 8 and 9 on SQLite: a lease whose holder's process is gone on this machine
 * is taken over at once (it waited out the whole lease); a deleted thread leaves no row, and
 * `compact()` gives its pages back to the file system.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../stores/index.js";
import { thisProcess } from "../../stores/liveness.js";
import { SqliteStateStore } from "./index.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-del-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: "k", node: "a", data };
}

/** The PID of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(r.stdout.toString());
}

/** Write the lease row of a holder as another process would have. */
function holdAs(
  path: string,
  holder: { host: string; pid: number; started: string | null },
  ttlMs = 60_000,
): void {
  const db = new Database(path);
  try {
    db.prepare(
      "INSERT OR REPLACE INTO leases (thread_id, branch_id, owner, expires_at, host, pid, started) VALUES ('t', 'main', 'dead-run', ?, ?, ?, ?)",
    ).run(Date.now() + ttlMs, holder.host, holder.pid, holder.started);
  } finally {
    db.close();
  }
}

describe("SqliteStateStore leases that know the dead", () => {
  it("takes over at once a lease whose process is gone on this machine", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    holdAs(path, { host: thisProcess().host, pid: deadPid(), started: null });
    expect(await store.acquireLease("t", "main", "new-run", 60_000)).toBe(true);
    const row = new Database(path, { readonly: true })
      .prepare("SELECT owner, host, pid FROM leases")
      .get();
    expect(row).toEqual({ owner: "new-run", host: thisProcess().host, pid: process.pid });
    await store.close();
  });

  it("records this process as the holder of a new, renewed or expired lease (a live holder's expired one too)", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const me = thisProcess();
    const read = () =>
      new Database(path, { readonly: true })
        .prepare("SELECT owner, host, pid, started, expires_at FROM leases")
        .get() as {
        owner: string;
        host: string;
        pid: number;
        started: string | null;
        expires_at: number;
      };
    const mine = { host: me.host, pid: process.pid, started: me.started };
    expect(await store.acquireLease("t", "main", "run-1", 60_000)).toBe(true);
    expect(read()).toMatchObject({ owner: "run-1", ...mine });
    const first = read().expires_at;
    await new Promise((r) => setTimeout(r, 5));
    expect(await store.acquireLease("t", "main", "run-1", 60_000)).toBe(true);
    expect(read().expires_at).toBeGreaterThan(first);
    // A live holder (the parent process) whose lease expired: taken over, this process recorded.
    holdAs(path, { host: me.host, pid: process.ppid, started: null }, -1);
    expect(await store.acquireLease("t", "main", "run-2", 60_000)).toBe(true);
    expect(read()).toMatchObject({ owner: "run-2", ...mine });
    // Unexpired: refused, the row left as it was.
    holdAs(path, { host: me.host, pid: process.ppid, started: null });
    expect(await store.acquireLease("t", "main", "run-3", 60_000)).toBe(false);
    expect(read()).toMatchObject({ owner: "dead-run", host: me.host, pid: process.ppid });
    await store.close();
  });

  it("takes over a lease whose PID was reused by another process (its start time differs)", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const me = thisProcess();
    // The PID of this (running) process, but recorded with another start time.
    holdAs(path, { host: me.host, pid: process.ppid, started: "1" });
    const expected = me.started !== null; // /proc is there (Linux): the reuse is seen
    expect(await store.acquireLease("t", "main", "new-run", 60_000)).toBe(expected);
    await store.close();
  });

  it("waits for a live holder, a holder on another machine, or one with no PID", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    const me = thisProcess();
    const parent = { host: me.host, pid: process.ppid, started: null };
    for (const holder of [parent, { host: "another-machine", pid: deadPid(), started: null }]) {
      holdAs(path, holder);
      expect(await store.acquireLease("t", "main", "new-run", 60_000)).toBe(false);
    }
    const db = new Database(path);
    db.prepare("UPDATE leases SET host = NULL, pid = NULL").run();
    db.close();
    expect(await store.acquireLease("t", "main", "new-run", 60_000)).toBe(false);
    await store.close();
  });

  it("adds the holder columns to a file made before them, and uses them", async () => {
    const path = fresh();
    const old = new Database(path);
    new SqliteStateStore({ path }).close();
    for (const c of ["host", "pid", "started"]) old.exec(`ALTER TABLE leases DROP COLUMN ${c}`);
    old
      .prepare(
        "INSERT INTO leases (thread_id, branch_id, owner, expires_at) VALUES ('t', 'main', 'old', ?)",
      )
      .run(Date.now() + 60_000);
    old.close();
    const store = new SqliteStateStore({ path });
    // A lease written by an older writer: nothing says where it runs, so it waits for its ttl.
    expect(await store.acquireLease("t", "main", "new-run", 60_000)).toBe(false);
    expect(await store.acquireLease("t2", "main", "new-run", 60_000)).toBe(true);
    await store.close();
  });
});

describe("SqliteStateStore deleteThread", () => {
  it("leaves no row of the thread and compact() shrinks the file", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    await store.append("keep", "main", [ev("kept")], 0);
    for (let i = 0; i < 50; i++) await store.append("big", "main", [ev("x".repeat(100_000))], i);
    const [first] = await store.read("big", "main", { uptoSeq: 1 });
    await store.createBranch("big", first!.id, "alt");
    await store.saveSnapshot("big", "main", { seq: 50, data: "s".repeat(100_000) });
    expect(await store.acquireLease("big", "main", "old", 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    await store.checkpoint();
    const full = await store.fileSizeBytes();
    expect(full).toBeGreaterThan(5_000_000);

    expect(await store.deleteThread("big")).toEqual(["big"]);
    const db = new Database(path, { readonly: true });
    for (const table of ["events", "branches", "snapshots", "leases"]) {
      const { c } = db
        .prepare(`SELECT count(*) AS c FROM ${table} WHERE thread_id = 'big'`)
        .get() as {
        c: number;
      };
      expect(c, table).toBe(0);
    }
    db.close();
    await store.compact();
    const compacted = await store.fileSizeBytes();
    expect(compacted).toBeLessThan(200_000);
    expect(statSync(path).size).toBe(compacted);
    expect((await store.read("keep", "main")).map((e) => e.data)).toEqual(["kept"]);
    await store.close();
  });
});
