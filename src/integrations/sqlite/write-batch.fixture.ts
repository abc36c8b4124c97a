/**
 * Test fixture (not part of the API) for the SQLite group-commit tests (write-batch*.test.ts):
 * one event, the [seq, data] of events read back, and writer processes killed mid-batch
 * (append-until-killed.fixture.ts with `--threads N`), with the check of what they leave.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import type { NewEvent, StoredEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";

/** A `task_finished` event of run "r1" with `data`. */
export function ev(data: NewEvent["data"]): NewEvent {
  return { type: "task_finished", runId: "r1", step: 0, taskId: null, node: null, data };
}

/** seq and data of each event, as read back. */
export const seqData = (events: StoredEvent[]): [number, unknown][] =>
  events.map((e) => [e.seq, e.data]);

/** Writer processes appending to one file until killed, and what they acknowledged. */
export interface KilledWriters {
  /** Per thread, the last seq a writer printed as acknowledged. */
  acked: Map<string, number>;
  /** SIGKILL every writer once `enough(acked)` holds; rejects when one exits before. */
  killWhen(enough: (acked: Map<string, number>) => boolean): Promise<void>;
}

/**
 * Start one writer process per prefix on `path`, each appending to `threads` threads at once
 * ("<prefix>0" … ) until killed.
 */
export function startWriters(path: string, prefixes: string[], threads: number): KilledWriters {
  const script = fileURLToPath(new URL("./append-until-killed.fixture.ts", import.meta.url));
  const acked = new Map<string, number>();
  let stderr = "";
  const children: ChildProcess[] = prefixes.map((prefix) =>
    spawn(
      process.execPath,
      [...SOURCE_LOADER, script, path, "--threads", String(threads), "--prefix", prefix],
      {
        cwd: fileURLToPath(new URL("../../..", import.meta.url)),
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
  );
  const killWhen = async (enough: (acked: Map<string, number>) => boolean): Promise<void> => {
    const exits = children.map(
      (c) => new Promise<NodeJS.Signals | null>((r) => c.on("exit", (_code, signal) => r(signal))),
    );
    await new Promise<void>((resolve, reject) => {
      for (const child of children) {
        let buffer = "";
        child.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
        });
        child.stdout!.on("data", (d: Buffer) => {
          buffer += d.toString();
          const lines = buffer.split("\n");
          buffer = lines.pop()!;
          for (const line of lines) {
            const [, threadId, seq] = line.split(" ");
            acked.set(threadId!, Math.max(acked.get(threadId!) ?? 0, Number(seq)));
          }
          if (enough(acked)) resolve();
        });
        child.on("exit", (code, signal) =>
          reject(new Error(`a writer exited early (${code} ${signal}): ${stderr}`)),
        );
      }
    });
    for (const c of children) c.kill("SIGKILL");
    expect(await Promise.all(exits)).toEqual(children.map(() => "SIGKILL"));
  };
  return { acked, killWhen };
}

/**
 * Check the file the killed writers left: `integrity_check` ok, and each thread's events, read
 * by a new store, numbered 1, 2, … with their data's seq, at least as many as acknowledged, and
 * the branch's last seq the last of them.
 */
export async function expectAckedKept(
  path: string,
  threadIds: string[],
  acked: Map<string, number>,
): Promise<void> {
  const db = new Database(path);
  expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
  db.close();
  const store = new SqliteStateStore({ path });
  for (const t of threadIds) {
    const events = await store.read(t, "main");
    expect(events.length).toBeGreaterThanOrEqual(acked.get(t) ?? 0);
    expect((await store.getBranch(t, "main"))?.lastSeq ?? 0).toBe(events.length);
    events.forEach((e, i) => {
      expect([e.seq, (e.data as { seq: number }).seq]).toEqual([i + 1, i + 1]);
    });
  }
  await store.close();
}
