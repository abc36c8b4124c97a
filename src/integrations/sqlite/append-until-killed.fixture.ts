/**
 * Test fixture (not part of the API): appends events to thread "t" branch "main" of the SQLite
 * store at `process.argv[2]` in a loop, printing `acked <lastSeq>` after each append resolves,
 * until it is killed. Run with `node --import tsx <this file> <path> [--exclusive]` (the store
 * opened with `exclusive: true`), or `<path> --threads N`: N such loops at once, on threads
 * "t0" … "t<N-1>" (so their appends are committed in batches), printing `acked <thread> <lastSeq>`;
 * `<path> --threads N --prefix P` names them "P0" … "P<N-1>" (several writer processes on one file).
 *
 * It stops by itself (exit code 3) when the process that started it is gone (a test worker killed
 * before it could kill this writer: the writer would otherwise fill the disk, or the memory when
 * the temporary folder is a tmpfs) and after {@link MAX_SEQ} events on a thread (tests kill it
 * after a few thousand).
 *
 * @module
 */
import { SqliteStateStore } from "./sqlite-state-store.js";

const path = process.argv[2];
if (!path)
  throw new Error(
    "usage: append-until-killed.fixture.ts <database file> [--exclusive | --threads N]",
  );
const threads = process.argv[3] === "--threads" ? Number(process.argv[4]) : 0;
const prefix = process.argv[5] === "--prefix" ? process.argv[6]! : "t";
/** The most events a thread gets before the writer stops by itself (about 400 MB of them). */
const MAX_SEQ = 100_000;
const parent = process.ppid;
const store = new SqliteStateStore({ path, exclusive: process.argv[3] === "--exclusive" });

async function appendLoop(threadId: string, say: (last: number) => string): Promise<never> {
  let last = (await store.getBranch(threadId, "main"))?.lastSeq ?? 0;
  for (;;) {
    if (process.ppid !== parent || last >= MAX_SEQ) process.exit(3);
    const n = 1 + (last % 3);
    const events = Array.from({ length: n }, (_, i) => ({
      type: "task_finished" as const,
      runId: "writer",
      step: last,
      taskId: null,
      node: null,
      data: { seq: last + 1 + i, pad: "x".repeat(4000) },
    }));
    const stored = await store.append(threadId, "main", events, last);
    last = stored[stored.length - 1]!.seq;
    process.stdout.write(say(last));
  }
}

if (threads === 0) await appendLoop("t", (last) => `acked ${last}\n`);
else
  await Promise.all(
    Array.from({ length: threads }, (_, i) =>
      appendLoop(`${prefix}${i}`, (last) => `acked ${prefix}${i} ${last}\n`),
    ),
  );
