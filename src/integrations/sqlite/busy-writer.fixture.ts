/**
 * Test fixture (not part of the API): appends one small event at a time to thread `<thread>`
 * branch "main" of the SQLite store at `<path>`, opened with `busyTimeoutMs: <ms>`, printing
 * `ok <seq>` after each append and, when one fails, `failed <message>`, and ending with exit code 1.
 * Run with `node --import tsx <this file> <path> <thread> <ms>`. It stops by itself (exit code 3)
 * when the process that started it is gone (a test worker killed before it could end this writer).
 *
 * @module
 */
import { SqliteStateStore } from "./sqlite-state-store.js";

const [path, threadId, ms] = process.argv.slice(2);
if (!path || !threadId || !ms)
  throw new Error("usage: busy-writer.fixture.ts <database file> <thread> <busyTimeoutMs>");
const store = new SqliteStateStore({ path, busyTimeoutMs: Number(ms) });
let last = 0;
const parent = process.ppid;
for (;;) {
  if (process.ppid !== parent) process.exit(3);
  try {
    const stored = await store.append(
      threadId,
      "main",
      [{ type: "task_finished", runId: "w", step: 0, taskId: null, node: null, data: { last } }],
      last,
    );
    last = stored[0]!.seq;
    process.stdout.write(`ok ${last}\n`);
  } catch (e) {
    // (No process.exit: it can cut the line off before the pipe took it.)
    process.stdout.write(`failed ${(e as Error).message}\n`);
    process.exitCode = 1;
    break;
  }
  await new Promise((r) => setTimeout(r, 1));
}
