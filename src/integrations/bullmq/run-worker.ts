/**
 * `runRunWorker`: a worker process's side of top-level runs queued on BullMQ by servers
 * (`createServer({ runQueue })`, `nodestep serve --queue`). `nodestep worker` is this.
 * It starts and closes the worker; each run is `processRun` (process-run.ts).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type ConnectionOptions, Worker } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { usageReport } from "../../middleware/usage-report.js";
import { UsageLedger } from "../../middleware/usage-totals.js";
import { DEFAULT_PREFIX } from "./job-data.js";
import { HANDOVER, type JobContext, processRun, type ServedGraph } from "./process-run.js";
import {
  checkRedis,
  DEFAULT_RUN_STREAM_LIMITS,
  type RunStreamLimits,
  runKeys,
} from "./run-channel.js";
import { endAbandoned } from "./run-end-events.js";
import { DEFAULT_RUN_QUEUE, type RunJobData } from "./run-job.js";
import { checkRunModels, type RunModelChoices } from "./run-models.js";

/** Options of {@link runRunWorker}. */
export interface RunWorkerOptions {
  /** How to reach Redis (ioredis options such as `{ host: "127.0.0.1", port: 6379 }`). */
  connection: RedisOptions;
  /** BullMQ queue name; default `"nodestep-runs"`. The servers must use the same. */
  queueName?: string;
  /** BullMQ key prefix (also of the runs' event streams); default `"bull"`. */
  prefix?: string;
  /** The graph the servers serve (same name); it runs on its own `stateStore`, shared with them. */
  graph: ServedGraph;
  /**
   * The model choices, as the servers' `ServerOptions.models` (`nodestep worker --models`): a
   * run queued with a `model` runs the graph of that name here (`graph` for none, or for
   * `current`). A run asking for a name not here ends with an `UnknownModelError` (its
   * stream's `error`, its status `"error"`). Default: no choices (only `graph`).
   */
  models?: RunModelChoices;
  /** The run `context` every run gets, as `nodestep serve` gives it. */
  context?: unknown;
  /** Runs this worker runs at once; default 4. */
  concurrency?: number;
  /** A job's lock without renewal, in ms; default 30,000. A dead worker's runs are taken over after it lapses. */
  lockDurationMs?: number;
  /** How often lapsed locks are looked for, in ms; default 30,000. */
  stalledIntervalMs?: number;
  /** How many times a run may be taken over before it fails (its stream then ends with a `RunAbandonedError`); default 1. */
  maxStalledCount?: number;
  /**
   * While a run is taken over and the dead worker's lease on the thread has not expired yet:
   * the job goes back to the queue, delayed `firstDelayMs` doubling up to `maxDelayMs`, at
   * most `limit` times. Defaults: 200, 5,000, 100.
   */
  busyRetry?: { firstDelayMs?: number; maxDelayMs?: number; limit?: number };
  /** Bounds of the runs' event streams in Redis (the servers read them). */
  limits?: Partial<RunStreamLimits>;
  /** Errors of the worker itself (Redis…); default: written to stderr. */
  onError?: (error: Error) => void;
}

/** A started run worker. */
export interface RunWorker {
  /** The BullMQ worker. */
  readonly worker: Worker;
  /**
   * Stop taking runs, wait up to `drainMs` (default 10,000) for the running ones to end, then
   * hand the others back: each stops at once (its committed supersteps kept, its lease given
   * back) and its job goes back to the queue, where another worker takes the run over.
   */
  close(drainMs?: number): Promise<void>;
}

/**
 * Start a BullMQ worker that runs the top-level runs servers queue for `graph`.
 *
 * Each run streams its events into the run's Redis Stream (where any server reads them) and
 * runs on the graph's store (PostgreSQL, shared with the servers). A worker that dies in the
 * middle of a run leaves its job's lock to lapse; BullMQ then gives the job to another
 * worker, which takes the run over: it becomes the stream's only writer (the dead worker's
 * appends are refused from then on), writes a `resumed` event, and continues the thread with
 * `invoke(null)` from its last committed superstep once the dead worker's lease on it has
 * expired. A cancel request (`BullMQRunQueue.cancel`, the server's cancel route) aborts the
 * run where it runs, or before it starts.
 *
 * @throws TypeError when the graph has no state store; Error when Redis cannot be reached.
 * @example
 * ```ts
 * const store = new PostgresStateStore({ connectionString: process.env.DATABASE_URL });
 * const worker = await runRunWorker({ connection: { host: "127.0.0.1", port: 6379 }, graph: buildAgent({ stateStore: store }) });
 * process.on("SIGTERM", () => void worker.close());
 * ```
 */
export async function runRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { graph } = options;
  const store = graph?.stateStore;
  if (!store)
    throw new TypeError("runRunWorker needs a graph with a stateStore (shared with the servers)");
  const queueName = options.queueName ?? DEFAULT_RUN_QUEUE;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const keys = runKeys(prefix, queueName);
  const limits = { ...DEFAULT_RUN_STREAM_LIMITS, ...options.limits };
  const retry = {
    firstDelayMs: options.busyRetry?.firstDelayMs ?? 200,
    maxDelayMs: options.busyRetry?.maxDelayMs ?? 5_000,
    limit: options.busyRetry?.limit ?? 100,
  };
  await checkRedis(options.connection, "runRunWorker");
  const onError =
    options.onError ??
    ((e: Error) => process.stderr.write(`nodestep worker: ${e.stack ?? e.message}\n`));
  // Connection errors are BullMQ's to report (its worker's "error"); these reconnect quietly.
  const redis = new Redis({ ...options.connection, maxRetriesPerRequest: null });
  redis.on("error", () => {});
  const subscriber = new Redis({ ...options.connection, maxRetriesPerRequest: null });
  subscriber.on("error", () => {});
  // Who writes a run's stream (its facts' `owner`: `<host>/<pid>/<hex>:<job token>`).
  const workerId = `${hostname()}/${process.pid}/${randomBytes(2).toString("hex")}`;
  const models = options.models ? checkRunModels(graph, options.models) : null;
  const ledger = new UsageLedger(store);
  const ctx: JobContext = {
    graph,
    models,
    store,
    keys,
    limits,
    retry,
    redis,
    workerId,
    context: options.context,
    // The `end` event's threadUsage, as a server's (a server following the run puts its own,
    // priced, in place of it).
    usage: {
      thread: async (threadId, branchId) =>
        usageReport(await ledger.thread(threadId, branchId), null),
    },
    handingOver: false,
  };
  const worker = new Worker<RunJobData>(
    queueName,
    (job, token, signal) => processRun(job, token, signal, ctx),
    {
      connection: options.connection as ConnectionOptions,
      prefix,
      concurrency: options.concurrency ?? 4,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: options.maxStalledCount ?? 1,
    },
  );
  worker.on("error", onError);
  // A run whose job failed without its worker saying so (stalled more than maxStalledCount
  // times): end its stream, so that the clients following it learn.
  worker.on("failed", (job, error) => {
    const runId = typeof job?.data?.runId === "string" ? job.data.runId : null;
    if (runId === null) return;
    void endAbandoned(redis, keys, limits, workerId, runId, error).catch((e: unknown) =>
      onError(e as Error),
    );
  });
  await subscriber.subscribe(keys.cancelChannel);
  subscriber.on("message", (_channel: string, jobId: string) => {
    worker.cancelJob(jobId, "cancelled");
  });
  await worker.waitUntilReady();
  return {
    worker,
    async close(drainMs = 10_000) {
      const closing = worker.close();
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        closing.then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), drainMs);
        }),
      ]);
      clearTimeout(timer);
      if (!drained) {
        ctx.handingOver = true;
        worker.cancelAllJobs(HANDOVER);
      }
      await closing;
      subscriber.disconnect();
      await redis.quit().catch(() => {});
    },
  };
}
