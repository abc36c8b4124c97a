/**
 * SqliteStateStore's group commit under a burst (found by an adversarial review, when a batch
 * took every write waiting at the tick in one transaction): another process writing the file
 * must still get the write lock between the burst's transactions (at most BATCH_MAX_WRITES
 * writes and BATCH_MAX_BYTES each, the event loop turning between them), and the write-ahead
 * log, which SQLite checkpoints between transactions only, must keep about its usual size.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import { SqliteStateStore } from "./index.js";

vi.setConfig({ testTimeout: 120_000 });
const dir = mkdtempSync(join(tmpdir(), "nodestep-sqlite-locktime-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteStateStore group commit: the write lock", () => {
  it("lets another process (busyTimeoutMs 250) write while 2,000 conversations append 64 KB each at once", async () => {
    const path = join(dir, "store.db");
    const store = new SqliteStateStore({ path });
    const script = fileURLToPath(new URL("./busy-writer.fixture.ts", import.meta.url));
    const child = spawn(process.execPath, [...SOURCE_LOADER, script, path, "other", "250"], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    // (On "close": all of its output read.)
    const closed = new Promise<void>((r) => child.on("close", () => r()));
    let exit: [number | null, NodeJS.Signals | null] | undefined;
    child.on("exit", (code, signal) => {
      exit = [code, signal];
    });
    // Wait until the other process writes.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("ok 3\n")) resolve();
      });
      child.on("exit", () => reject(new Error(`writer exited early: ${out} ${stderr}`)));
    });
    const pad = "x".repeat(64_000);
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: 2000 }, (_, i) =>
          store.append(
            `c${round}-${i}`,
            "main",
            [
              {
                type: "task_finished",
                runId: "r",
                step: 0,
                taskId: null,
                node: null,
                data: { pad },
              },
            ],
            0,
          ),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGKILL");
    await closed;
    await store.close();
    expect(out.split("\n").filter((l) => l.startsWith("failed"))).toEqual([]);
    // It was still writing when killed: it did not end by itself.
    expect(exit).toEqual([null, "SIGKILL"]);
  });

  it("keeps the write-ahead log at about SQLite's checkpoint size after 1,000 conversations append 64 KB each at once", async () => {
    const path = join(dir, "wal.db");
    const store = new SqliteStateStore({ path });
    const pad = "x".repeat(64_000);
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        store.append(
          `c${i}`,
          "main",
          [{ type: "task_finished", runId: "r", step: 0, taskId: null, node: null, data: { pad } }],
          0,
        ),
      ),
    );
    // The server goes on: a few more appends, each checkpointing the log when it is past
    // SQLite's 1,000 pages (4 MB).
    for (let i = 0; i < 3; i++) {
      await store.append(
        "small",
        "main",
        [{ type: "task_finished", runId: "r", step: 0, taskId: null, node: null, data: { i } }],
        i,
      );
    }
    // One transaction a write: the log stays under 5 MB (4.2 MB measured) and the store takes
    // about the data's size; one transaction for the burst: 66 MB of log kept, twice the size.
    expect(statSync(`${path}-wal`).size).toBeLessThan(8_000_000);
    expect(await store.fileSizeBytes()).toBeLessThan(80_000_000);
    await store.close();
  });
});
