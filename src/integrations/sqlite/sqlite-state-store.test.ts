import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { StateStoreError } from "../../errors/index.js";
import type { NewEvent } from "../../stores/index.js";
import { describeStateStoreContract } from "../../stores/testing/contract.js";
import { SqliteStateStore } from "./index.js";
import { BRANCH_LAST_SEQ } from "./sqlite-state-sql.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-"));
let n = 0;
const fresh = () => join(dir, `store-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStateStoreContract(
  "SqliteStateStore",
  async () => new SqliteStateStore({ path: fresh() }),
  async (store) => {
    const path = (store as SqliteStateStore).path;
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  },
  { openPeer: async (store) => new SqliteStateStore({ path: (store as SqliteStateStore).path }) },
);

/**
 * Run append-until-killed.fixture.ts on `path` (with `args`), kill it with SIGKILL once it has
 * 1,500 events acknowledged, and give the last seq it acknowledged.
 */
async function appendUntilKilled(path: string, args: string[]): Promise<number> {
  const script = fileURLToPath(new URL("./append-until-killed.fixture.ts", import.meta.url));
  const child = spawn(process.execPath, [...SOURCE_LOADER, script, path, ...args], {
    cwd: fileURLToPath(new URL("../../..", import.meta.url)),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let acked = 0;
  let stderr = "";
  let buffer = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => resolve(signal)),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) acked = Math.max(acked, Number(line.replace("acked ", "")));
      if (acked >= 1500) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    child.on("exit", () => reject(new Error(`writer exited early: ${stderr}`)));
  });
  expect(await exited).toBe("SIGKILL");
  return acked;
}

function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: "k", node: "a", data };
}

async function storeWith3Events(): Promise<{ path: string; store: SqliteStateStore }> {
  const path = fresh();
  const store = new SqliteStateStore({ path });
  await store.append("t1", "main", [ev({ n: 1 }), ev({ n: 2 }), ev({ n: 3 })], 0);
  return { path, store };
}

/** Change the file behind the store's back, as a damaged disk or a stray script would. */
function tamper(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

async function rejection(p: Promise<unknown>): Promise<StateStoreError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(StateStoreError);
  return e as StateStoreError;
}

describe("SqliteStateStore", () => {
  it("uses WAL mode and keeps the data across close and reopen", async () => {
    const { path, store } = await storeWith3Events();
    await store.createBranch("t1", "t1/main/2", "alt");
    await store.saveSnapshot("t1", "main", { seq: 3, data: { n: 3 } });
    const before = await store.read("t1", "alt");
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT key, value FROM meta ORDER BY key").all()).toEqual([
      { key: "format", value: "nodestep-state-store" },
      { key: "schema_version", value: "2" },
    ]);
    expect(db.prepare("SELECT data FROM events WHERE seq = 2").get()).toEqual({ data: '{"n":2}' });
    db.close();
    const again = new SqliteStateStore({ path });
    expect(await again.read("t1", "alt")).toEqual(before);
    expect(await again.loadSnapshot("t1", "main")).toEqual({ seq: 3, data: { n: 3 } });
    expect(await again.getBranch("t1", "main")).toMatchObject({ lastSeq: 3 });
    await again.close();
  });

  it("reports a row whose data is not valid JSON, naming the thread and seq", async () => {
    const { path, store } = await storeWith3Events();
    tamper(path, `UPDATE events SET data = '{"n": 2' WHERE seq = 2`);
    const err = await rejection(store.read("t1", "main"));
    expect(err.message).toContain('Event 2 of thread "t1" branch "main" is damaged');
    expect(err.message).toContain("not valid JSON");
    expect([err.threadId, err.branchId]).toEqual(["t1", "main"]);
    expect((await rejection(store.getEvent("t1/main/2"))).message).toContain("Event 2");
    // The undamaged part stays readable.
    expect((await store.read("t1", "main", { uptoSeq: 1 })).map((e) => e.data)).toEqual([{ n: 1 }]);
    await store.close();
  });

  it("reports a data column that would close its row in a packed read as not valid JSON", async () => {
    const { path, store } = await storeWith3Events();
    // Valid JSON only inside the packed text of a read (see stores/packed-events.ts): the read
    // must not return the event it forges, and names the damaged row.
    tamper(
      path,
      `UPDATE events SET data = '{}],[3,"run_finished","r9",null,null,null,1,{}' WHERE seq = 2`,
    );
    const err = await rejection(store.read("t1", "main"));
    expect(err.message).toContain('Event 2 of thread "t1" branch "main" is damaged');
    expect(err.message).toContain("not valid JSON");
    expect((await store.read("t1", "main", { afterSeq: 2 })).map((e) => e.seq)).toEqual([3]);
    await store.close();
  });

  it("reports a row with an unknown event type, a missing event and a damaged snapshot", async () => {
    const { path, store } = await storeWith3Events();
    await store.saveSnapshot("t1", "main", { seq: 3, data: { ok: true } });
    tamper(path, "UPDATE events SET type = 'mystery' WHERE seq = 1");
    expect((await rejection(store.read("t1", "main"))).message).toContain(
      'Event 1 of thread "t1" branch "main" is damaged: unknown event type "mystery"',
    );
    tamper(
      path,
      "UPDATE events SET type = 'task_finished' WHERE seq = 1; DELETE FROM events WHERE seq = 2",
    );
    expect((await rejection(store.read("t1", "main"))).message).toContain(
      "event 2 is missing from the log",
    );
    tamper(path, "UPDATE snapshots SET data = 'nope'");
    expect((await rejection(store.loadSnapshot("t1", "main"))).message).toContain(
      'The snapshot of thread "t1" branch "main" (after event 3) is damaged',
    );
    await store.close();
  });

  it("refuses a file written with another schema version, telling to migrate, and changes nothing", async () => {
    const { path, store } = await storeWith3Events();
    await store.close();
    tamper(path, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    const err = (() => {
      try {
        new SqliteStateStore({ path });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as Error).message).toBe(
      `${path} was written with state store schema version 3; this nodestep reads version 2 (and migrates version 1 files to it). Open it with the nodestep version that wrote it (see docs/stores.md, "Schema versions"). Nothing was changed.`,
    );
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM events").get()).toEqual({ n: 3 });
    db.close();
  });

  it("refuses files that are not nodestep stores", () => {
    const foreign = fresh();
    tamper(foreign, "CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)");
    expect(() => new SqliteStateStore({ path: foreign })).toThrow(
      /is not a nodestep state store: it has tables \(events\) but no meta table/,
    );
    const garbage = fresh();
    writeFileSync(
      garbage,
      "this is not a database, just some text that is long enough ".repeat(20),
    );
    expect(() => new SqliteStateStore({ path: garbage })).toThrow(StateStoreError);
    // A directory that cannot be made (a file is in the way) is refused, naming the path.
    expect(() => new SqliteStateStore({ path: join(garbage, "sub", "x.db") })).toThrow(
      `Cannot open the SQLite state store at ${join(garbage, "sub", "x.db")}: its directory ${join(garbage, "sub")} cannot be made because a part of that path is a file, not a directory`,
    );
  });

  it("creates the database file's directory, as the CLI's sqlite:FILE does", async () => {
    const path = join(dir, "new", "nested", "threads.db");
    const store = new SqliteStateStore({ path });
    await store.append("t1", "main", [ev({ n: 1 })], 0);
    await store.close();
    expect(statSync(path).isFile()).toBe(true);
    const again = new SqliteStateStore({ path });
    expect((await again.read("t1", "main")).map((e) => e.data)).toEqual([{ n: 1 }]);
    await again.close();
  });

  it("looks up branches and event ranges through indexes, never by scanning events", async () => {
    const { path, store } = await storeWith3Events();
    await store.close();
    const db = new Database(path, { readonly: true });
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((r) => r.detail)
        .join("; ");
    expect(plan("SELECT last_seq FROM branches WHERE thread_id = 'a' AND branch_id = 'b'")).toMatch(
      /SEARCH branches USING INDEX sqlite_autoindex_branches_1 \(thread_id=\? AND branch_id=\?\)/,
    );
    expect(
      plan(
        "SELECT * FROM events WHERE thread_id = 'a' AND branch_id = 'b' AND seq > 1 AND seq <= 9",
      ),
    ).toBe("SEARCH events USING PRIMARY KEY (thread_id=? AND branch_id=? AND seq>? AND seq<?)");
    // A branch's last seq (and time, and bytes) is one seek to its last event.
    expect(
      plan(
        `SELECT parent_branch, parent_seq, ${BRANCH_LAST_SEQ} AS last_seq FROM branches b WHERE thread_id = 'a' AND branch_id = 'b'`,
      ),
    ).toBe(
      "SEARCH b USING INDEX sqlite_autoindex_branches_1 (thread_id=? AND branch_id=?); CORRELATED SCALAR SUBQUERY 1; SEARCH e USING PRIMARY KEY (thread_id=? AND branch_id=?)",
    );
    db.close();
  });

  it("accepts synchronous FULL and refuses other modes", async () => {
    const store = new SqliteStateStore({ path: fresh(), synchronous: "FULL" });
    await store.append("t", "main", [ev(1)], 0);
    expect(await store.fileSizeBytes()).toBeGreaterThan(0);
    await store.close();
    expect(
      () => new SqliteStateStore({ path: fresh(), synchronous: "OFF" as unknown as "FULL" }),
    ).toThrow(StateStoreError);
  });

  it("checkpoint() copies the WAL into the file and truncates it; a closed store refuses it", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path });
    for (let i = 1; i <= 20; i++) await store.append("t", "main", [ev(i)], i - 1);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    await store.checkpoint();
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(await store.fileSizeBytes()).toBe(statSync(path).size);
    expect((await store.read("t", "main")).length).toBe(20);
    await store.close();
    await expect(store.checkpoint()).rejects.toThrow(StateStoreError);
  });

  it("keeps one consistent log when three processes race to append to one branch", async () => {
    const path = fresh();
    await new SqliteStateStore({ path }).close();
    const script = fileURLToPath(new URL("./race-writer.fixture.ts", import.meta.url));
    const run = (tag: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [...SOURCE_LOADER, script, path, tag, "150"], {
          cwd: fileURLToPath(new URL("../../..", import.meta.url)),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on("data", (d: Buffer) => {
          err += d.toString();
        });
        child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
      });
    const outs = await Promise.all(["A", "B", "C"].map(run));
    expect(outs.map((o) => o.split(" ").slice(0, 2).join(" "))).toEqual([
      "done A",
      "done B",
      "done C",
    ]);
    const store = new SqliteStateStore({ path });
    const events = await store.read("t", "main");
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
    for (const tag of ["A", "B", "C"]) {
      // Each writer's events are all there, once each, in its own order.
      expect(events.filter((e) => e.runId === tag).map((e) => (e.data as { i: number }).i)).toEqual(
        Array.from({ length: 150 }, (_, i) => i),
      );
    }
    await store.close();
  });

  it("keeps every acknowledged append when the writing process is killed with SIGKILL", async () => {
    const path = fresh();
    const acked = await appendUntilKilled(path, []);
    const db = new Database(path);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
    const store = new SqliteStateStore({ path });
    const branch = await store.getBranch("t", "main");
    const events = await store.read("t", "main");
    expect(branch!.lastSeq).toBe(events.length);
    expect(events.length).toBeGreaterThanOrEqual(acked);
    events.forEach((e, i) => {
      expect(e.seq).toBe(i + 1);
      expect((e.data as { seq: number }).seq).toBe(i + 1);
    });
    // The thread goes on where it stopped.
    const [next] = await store.append("t", "main", [ev("after")], events.length);
    expect(next!.seq).toBe(events.length + 1);
    await store.close();
  });
});

describeStateStoreContract(
  "SqliteStateStore (exclusive)",
  async () => new SqliteStateStore({ path: fresh(), exclusive: true }),
  async (store) => {
    const path = (store as SqliteStateStore).path;
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  },
);

describe("SqliteStateStore with exclusive: true", () => {
  it("holds the file until it closes: no -shm file, no other connection, and the data stays", async () => {
    const path = fresh();
    const store = new SqliteStateStore({ path, exclusive: true });
    await store.append("t", "main", [ev({ n: 1 })], 0);
    expect(existsSync(`${path}-shm`)).toBe(false);
    expect(() => new SqliteStateStore({ path, exclusive: true, busyTimeoutMs: 10 })).toThrow(
      `Cannot open the SQLite state store at ${path} with exclusive: true: another connection (another process, or another store object in this one) has the file open. Close it first, or open every store on the file without exclusive.`,
    );
    expect(() => new SqliteStateStore({ path, busyTimeoutMs: 10 })).toThrow(
      `Cannot open the SQLite state store at ${path}: database is locked. Another connection (another process, or another store object in this one) held the write lock too long, or a store opened with exclusive: true holds the file; retry or raise busyTimeoutMs.`,
    );
    await store.close();
    const shared = new SqliteStateStore({ path });
    expect((await shared.read("t", "main")).map((e) => e.data)).toEqual([{ n: 1 }]);
    // A file another connection has open cannot be taken exclusively.
    expect(() => new SqliteStateStore({ path, exclusive: true, busyTimeoutMs: 10 })).toThrow(
      /with exclusive: true: another connection/,
    );
    await shared.close();
    expect(() => new SqliteStateStore({ path, exclusive: "yes" as unknown as boolean })).toThrow(
      "exclusive must be true or false, got yes",
    );
  });

  it("keeps every acknowledged append when the writing process is killed with SIGKILL", async () => {
    const path = fresh();
    const acked = await appendUntilKilled(path, ["--exclusive"]);
    const store = new SqliteStateStore({ path, exclusive: true });
    const events = await store.read("t", "main");
    expect(events.length).toBeGreaterThanOrEqual(acked);
    expect((await store.getBranch("t", "main"))!.lastSeq).toBe(events.length);
    events.forEach((e, i) => {
      expect((e.data as { seq: number }).seq).toBe(i + 1);
    });
    await store.close();
    const db = new Database(path);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });
});
