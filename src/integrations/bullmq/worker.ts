/**
 * `runWorker`: the workers' side of sub-agents on BullMQ.
 *
 * @module
 */
import { type ConnectionOptions, DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { GraphExecutionError, RunCancelledError, ThreadBusyError } from "../../errors/index.js";
import type { AgentResult } from "../../graph/sub-agents.js";
import type { RunOptions } from "../../graph/types.js";
import type { JsonValue } from "../../json/index.js";
import type { StateStore } from "../../stores/types.js";
import {
  DEFAULT_PREFIX,
  DEFAULT_QUEUE,
  type GraphRegistry,
  type JobData,
  jobDataSchema,
  registeredGraph,
} from "./job-data.js";
import { cancelRequested, type RunKeys, redisFrom, runKeys } from "./run-channel.js";

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  /** How to reach Redis, as for `BullMQExecutor`. */
  connection: ConnectionOptions;
  /** BullMQ queue name; default `"nodestep-agents"`. */
  queueName?: string;
  /** BullMQ key prefix; default `"bull"`. */
  prefix?: string;
  /** Graphs by name, the same names as the parent's executor. */
  registry: GraphRegistry;
  /** The store every worker and the parent share (`PostgresStateStore` across machines). */
  stateStore: StateStore;
  /** Jobs this worker runs at once; default 1. */
  concurrency?: number;
  /**
   * How long a job's lock lasts without renewal, in ms; default 30,000. The worker renews it
   * while it runs; a worker that dies leaves it to expire, and the job is then stalled.
   */
  lockDurationMs?: number;
  /** How often the worker looks for stalled jobs (whose lock expired) and puts them back, in ms; default 30,000. */
  stalledIntervalMs?: number;
  /** How many times a job may stall before it fails; default 1. */
  maxStalledCount?: number;
  /**
   * When the sub-agent's thread is busy (a dead worker's lease has not expired yet): the job
   * goes back to the queue, delayed `firstDelayMs` doubling up to `maxDelayMs`, at most
   * `limit` times before it fails with `ThreadBusyError`. Defaults: 200, 5,000, 100.
   */
  busyRetry?: { firstDelayMs?: number; maxDelayMs?: number; limit?: number };
  /** Called with errors of the worker itself (Redis connection…); default: written to stderr. */
  onError?: (error: Error) => void;
}

/**
 * Start a BullMQ worker that runs sub-agents submitted with `BullMQExecutor`.
 *
 * Each job runs its registered graph on `stateStore`, on the job's thread. When the thread
 * already has history from this job (a worker died in the middle of it and BullMQ delivered
 * the stalled job again), the worker continues the run with `graph.invoke(null, { threadId })`:
 * the store's log holds what finished, so tool calls that finished are not run again. When
 * the dead worker's lease on the thread has not expired yet (`ThreadBusyError`), the job goes
 * back to the queue with a growing delay. A completed job's return value is the sub-agent's
 * `AgentResult`; a sub-agent that fails (or pauses for an interrupt) fails the job, and its
 * error's name and message are kept in the job's data for `poll`.
 *
 * Close it with `await worker.close()`, which waits for the running jobs.
 *
 * @returns the BullMQ `Worker`, ready (connected).
 * @example
 * ```ts
 * // worker.ts — start as many as you like, on any machine
 * import { PostgresStateStore } from "nodestep/postgres";
 * import { runWorker } from "nodestep/bullmq";
 * import { registry } from "./registry.js";
 * await runWorker({
 *   connection: { host: "127.0.0.1", port: 6379 },
 *   registry,
 *   stateStore: new PostgresStateStore({ connectionString: process.env.DATABASE_URL }),
 * });
 * ```
 */
export async function runWorker(options: WorkerOptions): Promise<Worker> {
  const { registry, stateStore } = options;
  if (!registry || typeof registry !== "object")
    throw new TypeError("runWorker needs { registry }: graphs by name");
  if (!stateStore || typeof stateStore.getBranch !== "function")
    throw new TypeError("runWorker needs { stateStore }, shared with the parent");
  const retry = {
    firstDelayMs: options.busyRetry?.firstDelayMs ?? 200,
    maxDelayMs: options.busyRetry?.maxDelayMs ?? 5_000,
    limit: options.busyRetry?.limit ?? 100,
  };
  const lockDuration = options.lockDurationMs ?? 30_000;
  const keys = runKeys(options.prefix ?? DEFAULT_PREFIX, options.queueName ?? DEFAULT_QUEUE);
  const client = redisFrom(options.connection);
  const subscriber = redisFrom(options.connection);
  const worker = new Worker<JobData, AgentResult>(
    options.queueName ?? DEFAULT_QUEUE,
    (job, token, signal) =>
      runJob(job, token, signal, registry, stateStore, retry, { keys, client }),
    {
      connection: options.connection,
      prefix: options.prefix ?? DEFAULT_PREFIX,
      concurrency: options.concurrency ?? 1,
      lockDuration,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: options.maxStalledCount ?? 1,
    },
  );
  const onError =
    options.onError ??
    ((e: Error) => process.stderr.write(`nodestep worker: ${e.stack ?? e.message}\n`));
  worker.on("error", onError);
  await worker.waitUntilReady();
  // Cancel requests of `BullMQExecutor.cancel`, for the jobs this worker runs.
  await subscriber.subscribe(keys.cancelChannel);
  subscriber.on("message", (_channel: string, jobId: string) => {
    worker.cancelJob(jobId, "cancelled");
  });
  worker.on("closed", () => {
    subscriber.disconnect();
    client.disconnect();
  });
  return worker;
}

async function runJob(
  job: Job<JobData, AgentResult>,
  token: string | undefined,
  signal: AbortSignal | undefined,
  registry: GraphRegistry,
  store: StateStore,
  retry: { firstDelayMs: number; maxDelayMs: number; limit: number },
  cancel: { keys: RunKeys; client: Redis },
): Promise<AgentResult> {
  const id = String(job.id);
  const cancelled = (e: unknown): AgentResult => ({
    id,
    threadId: (job.data as JobData | undefined)?.threadId ?? null,
    status: "cancelled",
    state: null,
    error: failureOf(e),
  });
  const fail = async (error: { name: string; message: string }): Promise<never> => {
    if (jobDataSchema.safeParse(job.data).success)
      await job.updateData({ ...job.data, failure: error });
    throw new UnrecoverableError(`${error.name}: ${error.message}`);
  };
  const parsed = jobDataSchema.safeParse(job.data);
  if (!parsed.success) {
    return fail({
      name: "TypeError",
      message: `Job "${id}" is not a nodestep sub-agent job: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    });
  }
  let data = parsed.data;
  if (await cancelRequested(cancel.client, cancel.keys, id)) {
    return cancelled(new RunCancelledError(`Sub-agent ${id} was cancelled before it started`));
  }
  let graph: ReturnType<typeof registeredGraph>;
  try {
    graph = registeredGraph(registry, data.graph);
  } catch (e) {
    return fail(failureOf(e));
  }
  const lastSeq = (await store.getBranch(data.threadId, "main"))?.lastSeq ?? 0;
  if (data.startSeq === undefined) {
    data = { ...data, startSeq: lastSeq };
    await job.updateData(data);
  }
  // History written after this job first started: a worker ran it and died; continue that run.
  const resuming = lastSeq > data.startSeq!;
  const runOptions: RunOptions = {
    threadId: data.threadId,
    stateStore: store,
    rootRunId: data.rootRunId,
  };
  if (signal) runOptions.signal = signal;
  if (data.context !== undefined) runOptions.context = data.context;
  try {
    const r = await graph.invoke((resuming ? null : data.input) as never, runOptions);
    if (r.status === "interrupted") {
      const e = new GraphExecutionError(
        `Sub-agent ${id} (graph "${graph.name}") paused for an interrupt (${r.interrupts.map((i) => i.key).join(", ")}); a sub-agent cannot ask a person`,
        { graph: graph.name },
      );
      return fail(failureOf(e));
    }
    return {
      id,
      threadId: data.threadId,
      status: "completed",
      state: r.state as JsonValue,
      error: null,
    };
  } catch (e) {
    if (signal?.aborted) return cancelled(e);
    if (e instanceof ThreadBusyError && token !== undefined) {
      const n = data.busyRetries ?? 0;
      if (n < retry.limit) {
        const delay = Math.min(retry.firstDelayMs * 2 ** n, retry.maxDelayMs);
        await job.updateData({ ...data, busyRetries: n + 1 });
        await job.moveToDelayed(Date.now() + delay, token);
        throw new DelayedError();
      }
    }
    return fail(failureOf(e));
  }
}

function failureOf(e: unknown): { name: string; message: string } {
  const err = e as { name?: unknown; message?: unknown };
  return { name: String(err?.name ?? "Error"), message: String(err?.message ?? e) };
}
