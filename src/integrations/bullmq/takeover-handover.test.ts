/**
 * A run whose closing worker handed it back to the queue and died (SIGKILL) after the store
 * wrote the stopped run's `run_failed` and before the job recorded `handedOverAt`: the worker
 * that takes the run over knows from that stored error (the hand-over's `RunCancelledError`)
 * that the run did not end, and finishes it from its last committed superstep, each tool call
 * once (before, it ended the stream with the stored cancel). On the machine's Redis and
 * PostgreSQL (a key prefix and schema of this test, removed after); the dead worker is a
 * process of `handover-worker.fixture.ts`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { SOURCE_LOADER } from "../../../test/source-loader.js";
import type { QueuedRunEvent } from "../../server/run-queue.js";
import { PostgresStateStore } from "../postgres/index.js";
import { buildHandover, callsOf } from "./handover.fixture.js";
import { BullMQRunQueue, runRunWorker } from "./index.js";
import { isolation, PG_URL, REDIS, waitFor } from "./sse.fixture.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const fixture = fileURLToPath(new URL("./handover-worker.fixture.ts", import.meta.url));
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function start(args: string[]) {
  const p: ChildProcess = spawn(process.execPath, [...SOURCE_LOADER, fixture, ...args], {
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

it("a run handed over by a worker that died before recording handedOverAt is continued by the taker, each tool call once", async () => {
  const iso = isolation("handkill");
  closers.push(() => iso.cleanup());
  const dir = mkdtempSync(join(tmpdir(), "nodestep-handover-"));
  closers.push(async () => rmSync(dir, { recursive: true, force: true }));
  const store = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
  closers.push(() => store.close());
  await store.getBranch("t", "main"); // the schema's tables, before two processes use them
  const queue = new BullMQRunQueue({ connection: REDIS, prefix: iso.prefix });
  closers.push(() => queue.close());

  const doomed = start([iso.prefix, iso.schema, dir]);
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
    graph: "handover",
    threadId: "t",
    branchId: "main",
    detached: true,
    messageId: null,
    input: { messages: [{ type: "human", content: "go" }] },
    modes: ["updates"],
  });
  expect(await doomed.exited).toEqual({ code: null, signal: "SIGKILL" });
  expect(doomed.out()).toBe("ready\nclosing\n");
  const stored = await store.read("t", "main");
  expect(stored.at(-1)!.type).toBe("run_failed");
  expect(stored.at(-1)!.data).toEqual({
    error: {
      name: "RunCancelledError",
      message:
        'Run "run-1" was handed back to the queue by its closing worker; another worker continues it',
    },
  });
  expect((await queue.queue.getJob("run-1"))?.data.handedOverAt).toBeUndefined();
  expect(callsOf(dir)).toEqual(["A t1"]);

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
    graph: buildHandover({ stateStore: store, dir, worker: "B" }),
    lockDurationMs: 1_000,
    stalledIntervalMs: 300,
    busyRetry: { firstDelayMs: 100, maxDelayMs: 500, limit: 100 },
  });
  closers.push(() => taker.close(0));
  await waitFor("the run's stream to end", () => ended, 30_000);

  const node = (e: QueuedRunEvent) => (e.data as { node?: string }).node ?? null;
  expect(events.map((e) => [e.id, e.event, node(e)])).toEqual([
    [1, "run", null],
    [2, "updates", "think"],
    [3, "updates", "act"],
    [4, "updates", "think"],
    [5, "resumed", null],
    [6, "updates", "act"],
    [7, "updates", "think"],
    [8, "end", null],
  ]);
  expect(events[4]!.data).toEqual({ runId: "run-1", afterSeq: 5 });
  // The taker's part continues after the hand-over's run_failed, from the committed supersteps.
  const after = await store.read("t", "main");
  expect(after.map((e) => [e.seq, e.type])).toEqual([
    [1, "run_started"],
    [2, "step_committed"],
    [3, "step_committed"],
    [4, "step_committed"],
    [5, "run_failed"],
    [6, "run_started"],
    [7, "step_committed"],
    [8, "step_committed"],
    [9, "run_finished"],
  ]);
  expect(new Set(after.slice(0, 5).map((e) => e.runId))).toEqual(new Set(["run-1"]));
  expect(after.slice(5).every((e) => /^run-1~\d+$/.test(e.runId ?? ""))).toBe(true);
  const end = events[7]!.data as {
    status: string;
    lastEventId: string;
    state: {
      finalText: string;
      messages: { type: string; content: unknown; toolCallId?: string }[];
    };
  };
  expect([end.status, end.lastEventId, end.state.finalText]).toEqual([
    "completed",
    "t/main/9",
    'done: {"result":"noted first"} | {"result":"slow done"}',
  ]);
  expect(end.state.messages.map((m) => [m.type, m.content, m.toolCallId ?? null])).toEqual([
    ["human", "go", null],
    ["ai", null, null],
    ["tool", '{"result":"noted first"}', "t1"],
    ["ai", null, null],
    ["tool", '{"result":"slow done"}', "t2"],
    ["ai", 'done: {"result":"noted first"} | {"result":"slow done"}', null],
  ]);
  // Each tool call ran once: t1 on the dead worker, t2 (stopped there) on the taker.
  expect(callsOf(dir)).toEqual(["A t1", "B t2"]);
  const job = await queue.queue.getJob("run-1");
  expect(job?.returnvalue).toEqual({ status: "done" });
  expect((await queue.facts("run-1"))?.status).toBe("done");
});
