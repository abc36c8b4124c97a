/**
 * Test fixture (not part of the API): a run worker process that dies by SIGKILL right after
 * its store has written a run's `run_failed`, before the run's stream says so.
 *
 *   node --import tsx killed-worker.fixture.ts <prefix> <schema>
 *
 * Runs `runRunWorker` for `failing.fixture.ts`'s graph on Redis 127.0.0.1:6379 under `prefix`
 * and the PostgreSQL schema `schema`, with a 1 s job lock and a 300 ms stalled check. Prints
 * `ready` when connected.
 */
import { storeDyingAfterRunFailed } from "./dying-store.fixture.js";
import { buildFailing } from "./failing.fixture.js";
import { runRunWorker } from "./run-worker.js";

const [prefix, schema] = process.argv.slice(2);
if (!prefix || !schema) throw new Error("usage: killed-worker.fixture.ts <prefix> <schema>");

// Stored, and nothing after it: no stream end, no lease given back.
const stateStore = storeDyingAfterRunFailed(schema);
await runRunWorker({
  connection: { host: "127.0.0.1", port: 6379 },
  prefix,
  graph: buildFailing({ stateStore }),
  lockDurationMs: 1_000,
  stalledIntervalMs: 300,
});
process.stdout.write("ready\n");
