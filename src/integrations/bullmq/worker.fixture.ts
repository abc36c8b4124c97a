/**
 * Test fixture (not part of the API): a BullMQ worker process of the tests.
 *
 *   node --import tsx worker.fixture.ts <prefix> <schema> <dir> <worker> [hold]
 *
 * Runs `runWorker` on Redis 127.0.0.1:6379 under `prefix`, with the registry of
 * `agents.fixture.ts` on the PostgreSQL schema `schema`; a 1 s job lock and a 300 ms stalled
 * check, so that a killed worker's job is taken over in seconds. Prints `ready` when
 * connected; SIGTERM closes the worker and the store. With `hold`, it prints `loaded` once its
 * modules are loaded and starts the worker only when the file `<dir>/go-<worker>` appears (so
 * that a test can have a second worker at hand without waiting for a process to start).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PostgresStateStore } from "../postgres/index.js";
import { testRegistry } from "./agents.fixture.js";
import { runWorker } from "./index.js";

const [prefix, schema, dir, name, hold] = process.argv.slice(2);
if (!prefix || !schema || !dir || !name)
  throw new Error("usage: worker.fixture.ts <prefix> <schema> <dir> <worker>");

if (hold === "hold") {
  process.stdout.write("loaded\n");
  while (!existsSync(join(dir, `go-${name}`))) await new Promise((r) => setTimeout(r, 20));
}
const stateStore = new PostgresStateStore({
  connectionString: "postgres://postgres@127.0.0.1:5432/test",
  schema,
});
const worker = await runWorker({
  connection: { host: "127.0.0.1", port: 6379 },
  prefix,
  registry: testRegistry(dir, name),
  stateStore,
  lockDurationMs: 1_000,
  stalledIntervalMs: 300,
  busyRetry: { firstDelayMs: 100, maxDelayMs: 500 },
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void worker
    .close()
    .then(() => stateStore.close())
    .then(() => process.exit(0));
});
