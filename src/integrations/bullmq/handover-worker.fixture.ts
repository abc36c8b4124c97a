/**
 * Test fixture (not part of the API): a run worker process that closes while its run is in
 * tool `slow` (so that it hands the run back to the queue), and dies by SIGKILL right after
 * its store has written that stopped run's `run_failed`, before the job records
 * `handedOverAt`.
 *
 *   node --import tsx handover-worker.fixture.ts <prefix> <schema> <dir>
 *
 * Runs `runRunWorker` for `handover.fixture.ts`'s agent (worker `"A"`, writing under `dir`)
 * on Redis 127.0.0.1:6379 under `prefix` and the PostgreSQL schema `schema`, with a 1 s job
 * lock and a 300 ms stalled check. Prints `ready` when connected, `closing` when it closes.
 */
import { storeDyingAfterRunFailed } from "./dying-store.fixture.js";
import { buildHandover } from "./handover.fixture.js";
import { type RunWorker, runRunWorker } from "./run-worker.js";

const [prefix, schema, dir] = process.argv.slice(2);
if (!prefix || !schema || !dir) {
  throw new Error("usage: handover-worker.fixture.ts <prefix> <schema> <dir>");
}

// Stored, and nothing after it: no handedOverAt, no lease given back.
const stateStore = storeDyingAfterRunFailed(schema);
let handle: RunWorker | null = null;
const onSlow = () => {
  process.stdout.write("closing\n");
  // No drain: the run is handed back at once.
  void handle?.close(0);
};
handle = await runRunWorker({
  connection: { host: "127.0.0.1", port: 6379 },
  prefix,
  graph: buildHandover({ stateStore, dir, worker: "A", onSlow }),
  lockDurationMs: 1_000,
  stalledIntervalMs: 300,
});
process.stdout.write("ready\n");
