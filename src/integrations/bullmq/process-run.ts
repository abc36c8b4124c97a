/**
 * `processRun`: one queued top-level run on a worker (the BullMQ processor of
 * `runRunWorker`): it checks the job, takes the run's stream over, runs or continues the
 * thread, and writes the run's events and end into the stream.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { DelayedError, type Job, UnrecoverableError } from "bullmq";
import type { Redis } from "ioredis";
import { GraphConfigError, RunCancelledError, ThreadBusyError } from "../../errors/index.js";
import type { Graph } from "../../graph/graph.js";
import type { RunOptions, StreamEvent } from "../../graph/types.js";
import { runEndData, type ThreadUsageReader } from "../../middleware/run-end-data.js";
import type { StateDefinition } from "../../state/define-state.js";
import type { StateStore } from "../../stores/types.js";
import {
  cancelRequested,
  type FinalStatus,
  type RunKeys,
  type RunStreamLimits,
  takeRun,
} from "./run-channel.js";
import { errorBody } from "./run-end-events.js";
import { type RunJobData, runJobSchema } from "./run-job.js";
import { graphOfModel, type RunModelChoices } from "./run-models.js";
import { runStreamWriter } from "./run-stream-writer.js";
import { type BusyRetry, busyRetryDelay, handOverError, storedRunEnd } from "./run-takeover.js";

/** Any graph a worker runs (the servers' `ServedGraph`). */
export type ServedGraph = Graph<StateDefinition | null>;

/** What the run jobs of one worker share. */
export interface JobContext {
  /** The graph the servers serve. */
  graph: ServedGraph;
  /** The model choices, checked (`null`: only `graph`). */
  models: RunModelChoices | null;
  /** The graph's state store. */
  store: StateStore;
  /** The queue's Redis keys. */
  keys: RunKeys;
  /** Bounds of the runs' streams. */
  limits: RunStreamLimits;
  /** How a taken-over run waits for a thread still leased. */
  retry: BusyRetry;
  /** The worker's connection for the runs' streams and facts. */
  redis: Redis;
  /** The worker's id, `<host>/<pid>/<hex>`: a run's owner is `<workerId>:<job token>`. */
  workerId: string;
  /** The run `context` every run gets. */
  context: unknown;
  /** The branches' usage for the runs' `end` (the worker's `UsageLedger`, no prices: `cost` is `null`). */
  usage: ThreadUsageReader;
  /** Set when the worker closes with runs still going: they go back to the queue. */
  handingOver: boolean;
}

/** The abort reason of runs handed back to the queue when a worker closes. */
export const HANDOVER = "nodestep worker closing: run handed back to the queue";

/**
 * What a run job returns (BullMQ's `job.returnvalue`): how the run ended.
 *
 * @example
 * ```ts
 * const { status } = (await Job.fromId(queue, jobId))!.returnvalue as RunJobResult; // "done"
 * ```
 */
export interface RunJobResult {
  /** `"done"`, `"interrupted"` (waits on an interrupt), `"error"` or `"cancelled"`; also the stream's last event's. */
  status: FinalStatus;
}

/**
 * Run one queued run (job `job`, lock `token`, aborted by `signal` on cancel or hand-over).
 * A run taken over from a dead worker continues from the store: a run the store says ended
 * gets only its stream's end; a run that started continues with `invoke(null)` from its last
 * committed superstep (store run id `<runId>~<n>`).
 *
 * @returns the run's final status (it is also the stream's last event).
 * @throws UnrecoverableError for a job that is not a run job, or a run another worker took
 *   over; DelayedError when the job went back to the queue (handed over on close, or its thread
 *   still leased to a dead worker). Every other error ends the stream with an `error` event.
 */
export async function processRun(
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
  const out = runStreamWriter(c.redis, c.keys, runId, owner, c.limits);
  let announce = () => {};
  const fail = async (e: unknown, status: FinalStatus): Promise<RunJobResult> => {
    announce();
    out.append("error", errorBody(e), status);
    await out.flush();
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
    const stored = storedRunEnd(after, data.handedOverAt ?? -1, runId);
    if (stored.kind === "finished") {
      // The dead worker finished the run but not its stream.
      const end = await runEndData(c.graph, threadId, branchId, c.usage);
      if (seq === 0) out.append("run", { threadId, branchId, runId });
      out.append("end", end, end.status === "interrupted" ? "interrupted" : "done");
      await out.flush();
      return { status: end.status === "interrupted" ? "interrupted" : "done" };
    }
    if (stored.kind === "failed") {
      // The dead worker stored the run's failure but died before its stream said so: the
      // stream ends with that error, as the dead worker's would have; nothing runs again.
      const { type, message } = stored;
      const status: FinalStatus =
        type === "RunCancelledError" || (await cancelRequested(c.redis, c.keys, runId))
          ? "cancelled"
          : "error";
      if (seq === 0) out.append("run", { threadId, branchId, runId });
      out.append("error", { error: { type, message } }, status);
      await out.flush();
      return { status };
    }
    if (stored.kind === "stopped") {
      // Its run started and stopped: killed, or handed back (its run_failed is the hand-over's,
      // whether or not the closing worker lived to write handedOverAt): continue it from its
      // last committed superstep.
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
    if (seq > 0) out.append("resumed", { runId, afterSeq: lastSeq });
    else out.append("run", { threadId, branchId, runId });
  };

  const controller = new AbortController();
  // A hand-over stops the run with an error the store keeps as such (see handOverError).
  const onAbort = () =>
    controller.abort(
      signal?.reason === HANDOVER ? handOverError(runId, signal?.reason) : signal?.reason,
    );
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
      out.append(e.mode, e);
      // Bound what is in flight, and notice a takeover.
      if (++n % 64 === 0) await out.flush();
      if (out.lost) {
        controller.abort(new Error(`run "${runId}" was taken over by another worker`));
        throw new UnrecoverableError(`Run "${runId}" was taken over by another worker`);
      }
    }
    const end = await runEndData(c.graph, threadId, branchId, c.usage);
    const status = end.status === "interrupted" ? "interrupted" : "done";
    announce();
    out.append("end", end, status);
    await out.flush();
    return { status };
  } catch (e) {
    if (e instanceof UnrecoverableError) throw e;
    if (c.handingOver && token !== undefined) {
      // Another worker takes it over (a takeover: `resumed`, then the rest of the run). The
      // stopped run's end (its run_failed, the hand-over's error) is stored by now: the taker
      // continues after it; handedOverAt also covers a run_failed of another error.
      await out.flush();
      const handedOverAt = (await c.store.getBranch(threadId, branchId))?.lastSeq ?? 0;
      await job.updateData({ ...data, handedOverAt });
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (takeover && e instanceof ThreadBusyError && token !== undefined) {
      const n = data.busyRetries ?? 0;
      const delay = busyRetryDelay(c.retry, n);
      if (delay !== null) {
        await out.flush();
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
