/**
 * Top-level runs on a BullMQ worker, in this process, on the machine's Redis and PostgreSQL
 * (a schema and key prefix per test, removed after): two servers on one queue, a run started
 * on one streamed and joined on the other from `Last-Event-ID`, listed on both, cancelled
 * from the other, a busy thread refused as in process, the bounds of the Redis Streams (410
 * before the events kept, the TTL) and of a server's runs (429), and a sub-agent cancelled by
 * its parent.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentJob } from "../../graph/sub-agents.js";
import { createServer, type ListeningServer, listen } from "../../server/index.js";
import { PostgresStateStore } from "../postgres/index.js";
import { BullMQExecutor, BullMQRunQueue, runRunWorker, runWorker } from "./index.js";
import { buildSteps } from "./runs.fixture.js";
import { isolation, PG_URL, parseSse, REDIS, type SseEvent, waitFor } from "./sse.fixture.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Two servers and one worker on one queue, each with its own store connection. */
async function cluster(
  limits?: { maxEvents: number; ttlMs: number },
  maxConcurrentRuns?: number,
  workers = 1,
) {
  const iso = isolation("runq");
  closers.push(() => iso.cleanup());
  const store = () => {
    const s = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    closers.push(() => s.close());
    return s;
  };
  const server = async () => {
    const runQueue = new BullMQRunQueue({
      connection: REDIS,
      prefix: iso.prefix,
      ...(limits ? { limits } : {}),
    });
    closers.push(() => runQueue.close());
    const app = createServer({
      graph: buildSteps({ stateStore: store() }),
      runQueue,
      ...(maxConcurrentRuns ? { maxConcurrentRuns } : {}),
    });
    const s: ListeningServer = await listen(app, { port: 0 });
    closers.push(() => s.close());
    return s;
  };
  const [a, b] = [await server(), await server()];
  const worker = () =>
    runRunWorker({
      connection: REDIS,
      prefix: iso.prefix,
      graph: buildSteps({ stateStore: store() }),
      concurrency: 4,
      ...(limits ? { limits } : {}),
    }).then((w) => {
      closers.push(() => w.close(0));
      return w;
    });
  for (let i = 0; i < workers; i++) await worker();
  return { a, b, store: store(), prefix: iso.prefix, schema: iso.schema, worker };
}

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const names = (events: SseEvent[]) =>
  events.map((e) =>
    e.event === "custom"
      ? `custom:${(e.data as { data: { at: string } }).data.at}`
      : e.event === "updates"
        ? `updates:${(e.data as { node: string }).node}`
        : e.event,
  );

describe("runs on a BullMQ worker", () => {
  it("streams a run queued on one server, and another server joins it from Last-Event-ID and lists it", async () => {
    const { a, b } = await cluster();
    const res = await post(`${a.url}/api/threads/t1/runs/stream`, { input: { topic: "x" } });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-nodestep-run-id")!;
    expect(runId).toMatch(/^r-[0-9a-f]{16}$/);
    const events = parseSse(await res.text());
    expect(names(events)).toEqual([
      "run",
      "custom:a",
      "updates:a",
      "custom:b",
      "updates:b",
      "custom:c",
      "updates:c",
      "updates:answer",
      "end",
    ]);
    expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events[0]!.data).toEqual({ threadId: "t1", branchId: "main", runId });
    const end = events[8]!.data as Record<string, unknown>;
    expect(end).toMatchObject({
      threadId: "t1",
      branchId: "main",
      status: "completed",
      interrupts: [],
      state: { topic: "x", trail: ["a", "b", "c"], answer: "x: a b c" },
    });
    const joined = await fetch(`${b.url}/api/threads/t1/runs/${runId}/stream`, {
      headers: { "last-event-id": "4" },
    });
    expect(joined.status).toBe(200);
    expect(parseSse(await joined.text())).toEqual(events.slice(4));
    const listed = (await (await fetch(`${b.url}/api/threads/t1/runs`)).json()) as {
      runs: Array<Record<string, unknown>>;
    };
    expect(listed.runs.map((r) => ({ ...r, startedAt: 0, endedAt: 0 }))).toEqual([
      {
        runId,
        threadId: "t1",
        branchId: "main",
        status: "done",
        detached: false,
        startedAt: 0,
        endedAt: 0,
        lastEventId: 9,
        firstBufferedId: 1,
      },
    ]);
    const info = (await (await fetch(`${b.url}/api/threads/t1/runs/${runId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(info).toMatchObject({ runId, status: "done", lastEventId: 9 });
    const missing = await fetch(`${b.url}/api/threads/t1/runs/r-0000000000000000`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        type: "UnknownRun",
        message:
          'Thread "t1" has no run "r-0000000000000000" on this server (finished runs are kept 300000 ms)',
      },
    });
  });

  it("keeps at most maxEvents of a run in Redis, for ttlMs: a server that reads it later answers 410 before them", async () => {
    const { a, b, prefix } = await cluster({ maxEvents: 3, ttlMs: 60_000 });
    const res = await post(`${a.url}/api/threads/t9/runs/stream`, { input: { topic: "x" } });
    const runId = res.headers.get("x-nodestep-run-id")!;
    expect(parseSse(await res.text()).map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Server A followed the run live and keeps its 9 events; Redis keeps the last 3 for B.
    const early = await fetch(`${b.url}/api/threads/t9/runs/${runId}/stream`, {
      headers: { "last-event-id": "2" },
    });
    expect(early.status).toBe(410);
    expect(await early.json()).toEqual({
      error: {
        type: "EventsExpired",
        message: `Run "${runId}" keeps its events from id 7 on; events after 2 are gone (read the thread's state instead: GET /api/threads/t9/state)`,
      },
    });
    const late = await fetch(`${b.url}/api/threads/t9/runs/${runId}/stream`, {
      headers: { "last-event-id": "6" },
    });
    expect(parseSse(await late.text()).map((e) => [e.id, e.event])).toEqual([
      [7, "updates"],
      [8, "updates"],
      [9, "end"],
    ]);
    const redis = new Redis(REDIS);
    try {
      for (const key of [
        `${prefix}:nodestep-runs:run:${runId}`,
        `${prefix}:nodestep-runs:events:${runId}`,
      ]) {
        const ttl = await redis.pttl(key);
        expect(ttl, key).toBeGreaterThan(50_000);
        expect(ttl, key).toBeLessThanOrEqual(60_000);
      }
      expect(await redis.xlen(`${prefix}:nodestep-runs:events:${runId}`)).toBe(3);
    } finally {
      redis.disconnect();
    }
  });

  it("counts the runs a server has queued and not seen end against maxConcurrentRuns (429)", async () => {
    const { a, b } = await cluster(undefined, 1);
    const held = await post(`${a.url}/api/threads/t8/runs`, {
      input: { topic: "hold" },
      detach: true,
    });
    const { runId } = (await held.json()) as { runId: string };
    const refused = await post(`${a.url}/api/threads/t7/runs`, { input: { topic: "x" } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: {
        type: "TooManyRuns",
        message: "This server runs at most 1 runs at once; try again when one has finished",
      },
    });
    // Another server has its own count.
    const other = await post(`${b.url}/api/threads/t7/runs`, { input: { topic: "x" } });
    expect(other.status).toBe(200);
    await post(`${b.url}/api/threads/t8/runs/${runId}/cancel`, {});
    await waitFor("A to see the run end", async () => {
      const r = await post(`${a.url}/api/threads/t6/runs`, { input: { topic: "y" } });
      return r.status === 200;
    });
  });

  it("a worker closing hands its run back after drainMs: another takes it over, the stream goes on", async () => {
    const { a, store, worker } = await cluster(undefined, undefined, 0);
    const before = process.env.NODESTEP_TEST_STEP_MS;
    process.env.NODESTEP_TEST_STEP_MS = "400";
    try {
      const first = await worker();
      const started = await post(`${a.url}/api/threads/t5/runs`, {
        input: { topic: "x" },
        detach: true,
      });
      const { runId } = (await started.json()) as { runId: string };
      await waitFor("a to be committed", async () =>
        (await store.read("t5", "main")).some((e) => e.type === "step_committed"),
      );
      await first.close(0);
      await worker();
      const events = parseSse(
        await (await fetch(`${a.url}/api/threads/t5/runs/${runId}/stream`)).text(),
      );
      const seen = names(events);
      expect(seen.slice(0, 3)).toEqual(["run", "custom:a", "updates:a"]);
      expect(seen.slice(3)).toEqual([
        "resumed",
        "custom:b",
        "updates:b",
        "custom:c",
        "updates:c",
        "updates:answer",
        "end",
      ]);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      const stored = await store.read("t5", "main");
      expect([...new Set(stored.map((e) => e.runId))]).toEqual([runId, `${runId}~2`]);
      expect(stored.filter((e) => e.type === "step_committed")).toHaveLength(4);
      const state = (await (await fetch(`${a.url}/api/threads/t5/state`)).json()) as {
        state: unknown;
      };
      expect(state.state).toEqual({
        topic: "x",
        trail: ["a", "b", "c"],
        answer: "x: a b c",
      });
    } finally {
      if (before === undefined) delete process.env.NODESTEP_TEST_STEP_MS;
      else process.env.NODESTEP_TEST_STEP_MS = before;
    }
  });

  it("answers a plain run when the worker has finished it, with the store's state", async () => {
    const { a, store } = await cluster();
    const res = await post(`${a.url}/api/threads/t2/runs`, { input: { topic: "y" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      threadId: "t2",
      branchId: "main",
      status: "completed",
      interrupts: [],
      state: { topic: "y", trail: ["a", "b", "c"], answer: "y: a b c" },
    });
    const events = await store.read("t2", "main");
    expect(events.filter((e) => e.type === "run_finished")).toHaveLength(1);
    expect(body.lastEventId).toBe(events.at(-1)!.id);
  });

  it("cancels from one server a detached run started on another, and refuses a second run on its busy thread with 409", async () => {
    const { a, b, store } = await cluster();
    const started = await post(`${a.url}/api/threads/t3/runs`, {
      input: { topic: "hold" },
      detach: true,
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    await waitFor("a to be committed", async () => {
      const r = (await (await fetch(`${b.url}/api/threads/t3/runs/${runId}`)).json()) as {
        lastEventId: number;
      };
      return r.lastEventId >= 3;
    });
    const busy = await post(`${b.url}/api/threads/t3/runs/stream`, { input: { topic: "z" } });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toEqual({
      error: {
        type: "ThreadBusyError",
        message:
          'Thread "t3" (branch "main") is already running; graph "steps" cannot start a second run on it until the first ends (or its lease of 1000 ms expires); pass onBusy: "enqueue" to wait for it, "interrupt" to stop it or "rollback" to undo it (docs/busy-threads.md)',
      },
    });
    const cancelled = await post(`${b.url}/api/threads/t3/runs/${runId}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ runId, status: "cancelled" });
    const stream = parseSse(
      await (await fetch(`${a.url}/api/threads/t3/runs/${runId}/stream`)).text(),
    );
    expect(names(stream)).toEqual(["run", "custom:a", "updates:a", "error"]);
    expect(stream[3]!.data).toEqual({
      error: { type: "RunCancelledError", message: 'Run of graph "steps" was cancelled' },
    });
    const state = (await (await fetch(`${a.url}/api/threads/t3/state`)).json()) as {
      state: unknown;
    };
    expect(state.state).toEqual({ topic: "hold", trail: ["a"], answer: null });
    expect(
      (await store.read("t3", "main")).filter((e) => e.type === "step_committed"),
    ).toHaveLength(1);
    const again = await post(`${a.url}/api/threads/t3/runs/${runId}/cancel`, {});
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: {
        type: "RunNotActive",
        message: `Run "${runId}" has already ended (status "cancelled")`,
      },
    });
  });

  it("cancels a sub-agent on a BullMQ worker from its parent: poll answers cancelled", async () => {
    const iso = isolation("subcancel");
    closers.push(() => iso.cleanup());
    const store = new PostgresStateStore({ connectionString: PG_URL, schema: iso.schema });
    closers.push(() => store.close());
    const steps = buildSteps({ stateStore: store });
    const registry = { steps };
    const executor = new BullMQExecutor({ connection: REDIS, prefix: iso.prefix, registry });
    closers.push(() => executor.close());
    const worker = await runWorker({
      connection: REDIS,
      prefix: iso.prefix,
      registry,
      stateStore: store,
    });
    closers.push(() => worker.close(true));
    const job: AgentJob = {
      id: "sa-cancel1",
      graph: steps,
      input: { topic: "hold" },
      context: undefined,
      hasContext: false,
      threadId: "sub-t1",
      stateStore: null,
      rootRunId: "run-parent",
    };
    const handles = await executor.submit([job]);
    await waitFor("the sub-agent to pass a", async () =>
      (await store.read("sub-t1", "main")).some((e) => e.type === "step_committed"),
    );
    expect(await executor.poll(handles)).toEqual([null]);
    await executor.cancel(handles);
    let results: unknown[] = [null];
    await waitFor("the cancelled result", async () => {
      results = await executor.poll(handles);
      return results[0] !== null;
    });
    expect(results).toEqual([
      {
        id: "sa-cancel1",
        threadId: "sub-t1",
        status: "cancelled",
        state: null,
        error: { name: "RunCancelledError", message: 'Run of graph "steps" was cancelled' },
      },
    ]);
  });

  it("reads a run no worker has taken as queued, with a warning while the queue has no worker, then running and done once one takes it", async () => {
    const { a, b, prefix, worker } = await cluster(undefined, undefined, 0);
    const warning = `no worker is taking runs from queue "nodestep-runs" (prefix "${prefix}"): queued runs wait until one starts on the same Redis, queue prefix and queue name (nodestep worker --queue-prefix … --queue-name …)`;
    const started = await post(`${a.url}/api/threads/tq/runs`, {
      input: { topic: "x" },
      detach: true,
    });
    expect(started.status).toBe(202);
    const info = (await started.json()) as Record<string, unknown>;
    const runId = info.runId as string;
    expect({ ...info, startedAt: 0 }).toEqual({
      runId,
      threadId: "tq",
      branchId: "main",
      status: "queued",
      detached: true,
      startedAt: 0,
      endedAt: null,
      lastEventId: 0,
      firstBufferedId: 1,
      warning,
    });
    // Server B knows it from Redis only: its facts say queued too.
    const onB = (await (await fetch(`${b.url}/api/threads/tq/runs/${runId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(onB).toMatchObject({ runId, status: "queued", lastEventId: 0, warning });
    const listed = (await (await fetch(`${a.url}/api/threads/tq/runs`)).json()) as {
      runs: Array<Record<string, unknown>>;
    };
    expect(listed.runs.map((r) => [r.runId, r.status, r.warning])).toEqual([
      [runId, "queued", warning],
    ]);
    await worker();
    // Each server's mirror follows the run's stream on its own: wait for both to see its end.
    await waitFor("the run's end on both servers", async () => {
      for (const server of [a, b]) {
        const r = (await (await fetch(`${server.url}/api/threads/tq/runs/${runId}`)).json()) as {
          status: string;
        };
        if (r.status !== "done") return false;
      }
      return true;
    });
    const done = (await (await fetch(`${a.url}/api/threads/tq/runs/${runId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(done).toMatchObject({ runId, status: "done", lastEventId: 9 });
    expect("warning" in done).toBe(false);
  });
});
