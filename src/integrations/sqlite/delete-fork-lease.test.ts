/**
 * `deleteThread` on SQLite and a fork made by another connection after it listed the
 * branches, whose lease a run then takes: the delete must refuse with `ThreadBusyError` (the
 * fork is running), not delete the fork under the run; a fork no run holds is deleted with the
 * thread (the delete starts over). (Its transaction deleted every branch of the thread, the
 * fork's too, and said it deleted the thread.) As on PostgreSQL (delete-fork-lease.test.ts there).
 *
 * The shared cases are in src/stores/delete-fork.fixture.ts (another store object on the file
 * acts as another process would); createBranch against another process's deletion is here.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { UnknownEventError } from "../../errors/index.js";
import { deleteForkCases, oneEvent } from "../../stores/delete-fork.fixture.js";
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

describe("deleteThread and a fork another connection made after its listing (SQLite)", () => {
  deleteForkCases(open);

  it("createBranch against a deletion another process commits meanwhile: no fork without its thread", async () => {
    const a = open();
    await a.append("t5", "main", [oneEvent, oneEvent], 0);
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
