/**
 * `runRunWorker`: a worker process's side of top-level runs queued on BullMQ by servers
 * (`createServer({ runQueue })`, `nodestep serve --queue`). `nodestep worker` is this.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type ConnectionOptions, DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { GraphConfigError, RunCancelledError, ThreadBusyError } from "../../errors/index.js";
import type { Graph } from "../../graph/graph.js";
import { pickOutput } from "../../graph/io-schema.js";
import type { RunOptions, StreamEvent } from "../../graph/types.js";
import type { StateDefinition } from "../../state/define-state.js";
import type { StateStore } from "../../stores/types.js";
import { DEFAULT_PREFIX } from "./job-data.js";
import {
  appendRunEvent,
  cancelRequested,
  checkRedis,
  DEFAULT_RUN_STREAM_LIMITS,
  type FinalStatus,
  type RunKeys,
  type RunStreamLimits,
  runKeys,
  takeRun,
} from "./run-channel.js";
import { DEFAULT_RUN_QUEUE, type RunJobData, runJobSchema } from "./run-job.js";
import { checkRunModels, graphOfModel, type RunModelChoices } from "./run-models.js";

/** Any graph a worker runs (the servers' `ServedGraph`). */
type ServedGraph = Graph<StateDefinition | null>;

/** The server's error body of `e`: `{ error: { type: its class name, message } }`. */
function errorBody(e: unknown): { error: { type: string; message: string } } {
  const error = e instanceof Error ? e : new Error(String(e));
  return { error: { type: error.name || "Error", message: error.message } };
}

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
    void endAbandoned(ctx, runId, error).catch((e: unknown) => onError(e as Error));
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

interface JobContext {
  graph: ServedGraph;
  models: RunModelChoices | null;
  store: StateStore;
  keys: RunKeys;
  limits: RunStreamLimits;
  retry: { firstDelayMs: number; maxDelayMs: number; limit: number };
  redis: Redis;
  workerId: string;
  context: unknown;
  /** Set when the worker closes with runs still going: they go back to the queue. */
  handingOver: boolean;
}

/** The abort reason of runs handed back to the queue when a worker closes. */
const HANDOVER = "nodestep worker closing: run handed back to the queue";

/** What a run job returns: how the run ended. */
export interface RunJobResult {
  status: FinalStatus;
}

async function processRun(
  job: Job<RunJobData>,
  token: string | undefined,
  signal: AbortSignal | undefined,
  c: JobContext,
): Promise<RunJobResult> {
  const parsed = runJobSchema.safeParse(job.data);
  if (!parsed.success) {
    throw new UnrecoverableError(
      `Job "${job.id}" is not a nodestep run job: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  let data = parsed.data;
  const { runId, threadId, branchId } = data;
  const owner = `${c.workerId}:${token ?? randomBytes(4).toString("hex")}`;
  const taken = await takeRun(c.redis, c.keys, runId, owner, c.limits.ttlMs);
  if ("ended" in taken) return { status: taken.ended as FinalStatus };
  const pending: Promise<number>[] = [];
  let lost = false;
  const append = (event: string, payload: unknown, final: FinalStatus | null = null) => {
    const p = appendRunEvent(c.redis, c.keys, runId, owner, event, payload, c.limits, final);
    p.then(
      (n) => {
        if (n === -1) lost = true;
      },
      () => {},
    );
    pending.push(p);
    return p;
  };
  const flush = async () => {
    await Promise.all(pending.splice(0));
  };
  let announce = () => {};
  const fail = async (e: unknown, status: FinalStatus): Promise<RunJobResult> => {
    announce();
    append("error", errorBody(e), status);
    await flush();
    return { status };
  };
  if (data.graph !== c.graph.name) {
    return fail(
      new GraphConfigError(
        `Run "${runId}" is for graph "${data.graph}", and this worker runs graph "${c.graph.name}"; start workers with the graph the servers serve`,
        { graph: data.graph },
      ),
      "error",
    );
  }
  let graph: ServedGraph;
  try {
    graph = graphOfModel(c.graph, c.models, data.model, runId);
  } catch (e) {
    return fail(e, "error");
  }
  if (await cancelRequested(c.redis, c.keys, runId))
    return fail(
      new RunCancelledError(`Run "${runId}" was cancelled before it started`),
      "cancelled",
    );

  const lastSeq = (await c.store.getBranch(threadId, branchId))?.lastSeq ?? 0;
  if (data.startSeq === undefined) {
    data = { ...data, startSeq: lastSeq };
    await job.updateData(data);
  }
  const takeover = taken.previous !== "";
  let input: Record<string, unknown> | null = data.input;
  // The store's run id is the server's; the part that continues a run taken over is
  // `<runId>~<n>` (set below), so that two workers never hold the thread's lease as one owner.
  const runOptions: RunOptions = { threadId, branchId, runId };
  if (data.resume !== undefined) runOptions.resume = data.resume;
  if (data.onBusy !== undefined) runOptions.onBusy = data.onBusy;
  if (data.onBusyTimeoutMs !== undefined) runOptions.onBusyTimeoutMs = data.onBusyTimeoutMs;
  if (c.context !== undefined) runOptions.context = c.context;
  const seq = Number(await c.redis.hget(c.keys.meta(runId), "seq"));
  if (takeover) {
    const after = await c.store.read(threadId, branchId, { afterSeq: data.startSeq! });
    let lastStart = -1;
    for (let i = 0; i < after.length; i++) if (after[i]!.type === "run_started") lastStart = i;
    if (lastStart >= 0) {
      // The run's end in the store: a run_finished or run_failed after its last start, and
      // after the point where a worker handed the run back (that stopped run's run_failed is
      // not the run's end; the run goes on).
      const handedOverAt = data.handedOverAt ?? -1;
      const ended = after
        .slice(lastStart)
        .find(
          (e) => (e.type === "run_finished" || e.type === "run_failed") && e.seq > handedOverAt,
        );
      if (ended?.type === "run_finished") {
        // The dead worker finished the run but not its stream.
        const end = await endOf(c, threadId, branchId);
        if (seq === 0) append("run", { threadId, branchId, runId });
        append("end", end, end.status === "interrupted" ? "interrupted" : "done");
        await flush();
        return { status: end.status === "interrupted" ? "interrupted" : "done" };
      }
      if (ended !== undefined) {
        // The dead worker stored the run's failure but died before its stream said so: the
        // stream ends with that error, as the dead worker's would have; nothing runs again.
        const stored = (ended.data as { error?: { name?: unknown; message?: unknown } } | null)
          ?.error;
        const type = typeof stored?.name === "string" ? stored.name : "Error";
        const message = typeof stored?.message === "string" ? stored.message : "";
        const status: FinalStatus =
          type === "RunCancelledError" || (await cancelRequested(c.redis, c.keys, runId))
            ? "cancelled"
            : "error";
        if (seq === 0) append("run", { threadId, branchId, runId });
        append("error", { error: { type, message } }, status);
        await flush();
        return { status };
      }
      // Its run started (and stopped: killed, handed back, or failed without a word in the
      // stream): continue it from its last committed superstep.
      input = null;
      runOptions.runId = `${runId}~${taken.takes}`;
      delete runOptions.resume;
      delete runOptions.onBusy;
      delete runOptions.onBusyTimeoutMs;
    }
  }
  // Written before the run's first event (or its end): a takeover that finds the thread still
  // leased goes back to the queue without a word.
  announce = () => {
    announce = () => {};
    if (seq > 0) append("resumed", { runId, afterSeq: lastSeq });
    else append("run", { threadId, branchId, runId });
  };

  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  runOptions.signal = controller.signal;
  try {
    const events = graph.stream(input as never, {
      ...runOptions,
      modes: data.modes,
    }) as AsyncIterable<StreamEvent>;
    let n = 0;
    for await (const e of events) {
      announce();
      append(e.mode, e);
      // Bound what is in flight, and notice a takeover.
      if (++n % 64 === 0) await flush();
      if (lost) {
        controller.abort(new Error(`run "${runId}" was taken over by another worker`));
        throw new UnrecoverableError(`Run "${runId}" was taken over by another worker`);
      }
    }
    const end = await endOf(c, threadId, branchId);
    const status = end.status === "interrupted" ? "interrupted" : "done";
    announce();
    append("end", end, status);
    await flush();
    return { status };
  } catch (e) {
    if (e instanceof UnrecoverableError) throw e;
    if (c.handingOver && token !== undefined) {
      // Another worker takes it over (a takeover: `resumed`, then the rest of the run). The
      // stopped run's end (its run_failed) is stored by now: the taker continues after it.
      await flush();
      const handedOverAt = (await c.store.getBranch(threadId, branchId))?.lastSeq ?? 0;
      await job.updateData({ ...data, handedOverAt });
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (takeover && e instanceof ThreadBusyError && token !== undefined) {
      const n = data.busyRetries ?? 0;
      if (n < c.retry.limit) {
        await flush();
        const delay = Math.min(c.retry.firstDelayMs * 2 ** n, c.retry.maxDelayMs);
        await job.updateData({ ...data, busyRetries: n + 1 });
        await job.moveToDelayed(Date.now() + delay, token);
        throw new DelayedError();
      }
    }
    const cancelled = signal?.aborted === true || e instanceof RunCancelledError;
    return fail(e, cancelled ? "cancelled" : "error");
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/** The `end` event's data, as the server's own: the thread's status, interrupts and output. */
async function endOf(c: JobContext, threadId: string, branchId: string) {
  const after = await c.graph.getState(threadId, { branchId });
  return {
    threadId,
    branchId,
    status: after.status,
    interrupts: after.interrupts,
    lastEventId: after.lastEventId,
    state: pickOutput(after.state, c.graph.outputFields),
  };
}

/** End the stream of a run whose job failed before its worker could (it stalled too often). */
async function endAbandoned(c: JobContext, runId: string, error: Error): Promise<void> {
  const owner = `${c.workerId}:failed`;
  const taken = await takeRun(c.redis, c.keys, runId, owner, c.limits.ttlMs);
  if ("ended" in taken) return;
  await appendRunEvent(
    c.redis,
    c.keys,
    runId,
    owner,
    "error",
    {
      error: {
        type: "RunAbandonedError",
        message: `Run "${runId}" was given up by the workers: ${error.message} (its worker died more often than maxStalledCount allows); its thread keeps the supersteps it committed`,
      },
    },
    c.limits,
    "error",
  );
}
