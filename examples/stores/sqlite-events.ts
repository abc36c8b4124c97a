/**
 * Append events to a SQLite state store, read them back, fork the thread and read the fork.
 *
 * Run: node --import tsx examples/stores/sqlite-events.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent } from "nodestep";
import { SqliteStateStore } from "nodestep/sqlite";

const dir = mkdtempSync(join(tmpdir(), "nodestep-example-"));
const path = join(dir, "threads.db");

const event = (type: NewEvent["type"], data: NewEvent["data"], step: number | null = null) => ({
  type,
  runId: "run-1",
  step,
  taskId: null,
  node: null,
  data,
});

try {
  const store = new SqliteStateStore({ path });
  const written = await store.append(
    "chat-1",
    "main",
    [
      event("run_started", { input: "What is 2 + 2?" }),
      event("step_committed", { update: { answer: 4 } }, 0),
      event("run_finished", { status: "completed" }),
    ],
    0, // the branch's lastSeq as this writer last saw it: 0 for a new thread
  );
  console.log(`appended ${written.map((e) => e.id).join(", ")}`);

  // A second writer that still believes the branch is empty is refused.
  try {
    await store.append("chat-1", "main", [event("run_started", {})], 0);
  } catch (e) {
    console.log(`stale writer: ${(e as Error).name}`);
  }

  await store.close();

  // Reopen the file: the events are there.
  const again = new SqliteStateStore({ path });
  for (const e of await again.read("chat-1", "main")) {
    console.log(`main ${e.seq} ${e.type} ${JSON.stringify(e.data)}`);
  }

  // Fork after the committed step and go another way: nothing is copied.
  const fork = await again.createBranch("chat-1", "chat-1/main/2", "retry");
  console.log(
    `fork ${fork.branchId} from ${fork.parent?.branchId}/${fork.parent?.seq}, lastSeq ${fork.lastSeq}`,
  );
  await again.append("chat-1", "retry", [event("run_finished", { status: "interrupted" })], 2);
  for (const e of await again.read("chat-1", "retry")) {
    console.log(`retry ${e.seq} ${e.branchId} ${e.type}`);
  }
  const threads = await again.listThreads();
  console.log(
    `threads: ${threads.map((t) => `${t.threadId} [${t.branches.join(", ")}]`).join("; ")}`,
  );
  await again.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
