/**
 * Test fixture (not part of the API): appends events to thread "t" branch "main" of the SQLite
 * store at `process.argv[2]` in a loop, printing `acked <lastSeq>` after each append resolves,
 * until it is killed. Run with `node --import tsx <this file> <path> [--exclusive]` (the store
 * opened with `exclusive: true`).
 *
 * @module
 */
import { SqliteStateStore } from "./sqlite-state-store.js";

const path = process.argv[2];
if (!path) throw new Error("usage: append-until-killed.fixture.ts <database file> [--exclusive]");
const store = new SqliteStateStore({ path, exclusive: process.argv[3] === "--exclusive" });
let last = (await store.getBranch("t", "main"))?.lastSeq ?? 0;
for (;;) {
  const n = 1 + (last % 3);
  const events = Array.from({ length: n }, (_, i) => ({
    type: "task_finished" as const,
    runId: "writer",
    step: last,
    taskId: null,
    node: null,
    data: { seq: last + 1 + i, pad: "x".repeat(4000) },
  }));
  const stored = await store.append("t", "main", events, last);
  last = stored[stored.length - 1]!.seq;
  process.stdout.write(`acked ${last}\n`);
}
