/**
 * A run whose worker died after the store wrote the run's `run_failed` and before the run's
 * stream said so: the worker that takes the run over ends the stream with that stored error
 * and does not run the graph again (before, it continued the thread with `invoke(null)`,
 * running the failed superstep a second time). On the machine's Redis and PostgreSQL (a key
 * prefix and schema of this test, removed after); the dead worker is a process of
 * `killed-worker.fixture.ts`, which SIGKILLs itself right after the store write.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import type { QueuedRunEvent } from "../../server/run-queue.js";
import { PostgresStateStore } from "../postgres/index.js";
import { buildFailing, runs } from "./failing.fixture.js";
import { BullMQRunQueue, runRunWorker } from "./index.js";
import { isolation, PG_URL, REDIS, waitFor } from "./sse.fixture.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const fixture = fileURLToPath(new URL("./killed-worker.fixture.ts", import.meta.url));
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function start(prefix: string, schema: string) {
  const p: ChildProcess = spawn(process.execPath, [...SOURCE_LOADER, fixture, prefix, schema], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  p.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  p.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    p.once("exit", (code, signal) => resolve({ code, signal })),
  );
  closers.push(async () => {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await exited;
  });
  return { process: p, exited, out: () => out, err: () => err };
}

it("a run whose dead worker stored run_failed but no stream end ends with that error on take-over, and is not run again", async () => {
  const iso = isolation("failedtake");
  closers.push(() => iso.cleanup());
  const store = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
  closers.push(() => store.close());
  await store.getBranch("t", "main"); // the schema's tables, before two processes use them
  const queue = new BullMQRunQueue({ connection: REDIS, prefix: iso.prefix });
  closers.push(() => queue.close());

  const doomed = start(iso.prefix, iso.schema);
  await waitFor(
    "the doomed worker to start",
    () => {
      if (doomed.process.exitCode !== null) throw new Error(`fixture exited: ${doomed.err()}`);
      return doomed.out().includes("ready\n");
    },
    40_000,
  );
  await queue.enqueue({
    runId: "run-1",
    graph: "failing",
    threadId: "t",
    branchId: "main",
    detached: true,
    messageId: null,
    input: {},
    modes: ["updates"],
  });
  expect(await doomed.exited).toEqual({ code: null, signal: "SIGKILL" });
  const stored = await store.read("t", "main");
  expect(stored.map((e) => [e.type, e.node, e.runId])).toEqual([
    ["run_started", null, "run-1"],
    ["step_committed", null, "run-1"],
    ["run_failed", null, "run-1"],
  ]);
  expect(stored.at(-1)!.data).toEqual({ error: { name: "Error", message: "boom on purpose" } });

  // A worker in this process takes the run over once the dead one's job lock lapses.
  const events: QueuedRunEvent[] = [];
  let ended = false;
  const stop = queue.follow("run-1", 0, (batch) => {
    events.push(...batch);
    if (batch.some((e) => e.event === "end" || e.event === "error")) ended = true;
  });
  closers.push(async () => stop());
  const taker = await runRunWorker({
    connection: REDIS,
    prefix: iso.prefix,
    graph: buildFailing({ stateStore: store }),
    lockDurationMs: 1_000,
    stalledIntervalMs: 300,
  });
  closers.push(() => taker.close(0));
  await waitFor("the run's stream to end", () => ended, 20_000);

  expect(events).toEqual([
    { id: 1, event: "run", data: { threadId: "t", branchId: "main", runId: "run-1" } },
    {
      id: 2,
      event: "updates",
      data: expect.objectContaining({ mode: "updates", node: "a", data: { trail: ["a"] } }),
    },
    { id: 3, event: "error", data: { error: { type: "Error", message: "boom on purpose" } } },
  ]);
  // Not run again: the store holds the one run, and this process ran no node.
  expect((await store.read("t", "main")).map((e) => e.type)).toEqual([
    "run_started",
    "step_committed",
    "run_failed",
  ]);
  expect(runs).toEqual({ a: 0, boom: 0 });
  const job = await queue.queue.getJob("run-1");
  expect(job?.returnvalue).toEqual({ status: "error" });
  expect(job?.attemptsStarted).toBe(2);
  expect((await queue.facts("run-1"))?.status).toBe("error");
});
