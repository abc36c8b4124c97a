/**
 * Runs of the server that workers run (`createServer({ runQueue })`, `nodestep serve --queue`):
 * the {@link RunQueue} contract (`BullMQRunQueue` of `nodestep/bullmq` implements it), and the
 * server's mirror of a queued run: a {@link ServerRun} fed from the queue's event stream, so
 * that joining, rejoining from `Last-Event-ID`, the UI stream and cancelling work as for a run
 * in the server's process, on whichever server the client is connected to.
 *
 * @module
 */
import type { StreamMode } from "../graph/context.js";
import type { JsonValue } from "../json/index.js";
import { findNonJson } from "../json/index.js";
import { HttpError, statusOfErrorType } from "./errors.js";
import {
  newServerRunId,
  type RunRegistry,
  type ServerRun,
  type ServerRunInfo,
  type ServerRunStatus,
  type UIRunReplay,
} from "./run-registry.js";
import { startedStream } from "./run-stream.js";

/** What a server queues: everything a worker needs to run it, as JSON. */
export interface QueuedRunRequest {
  /** The run's id: the server's, the job's and the stream's. */
  runId: string;
  /** The served graph's name; a worker of another graph refuses the run. */
  graph: string;
  /** The run's model choice (`ServerOptions.models`), absent for the served graph's own model. */
  model?: string;
  threadId: string;
  branchId: string;
  detached: boolean;
  /** A UI stream run's assistant message id. */
  messageId: string | null;
  input: Record<string, JsonValue> | null;
  resume?: Record<string, JsonValue>;
  modes: StreamMode[];
  onBusy?: "reject" | "enqueue" | "interrupt" | "rollback";
  onBusyTimeoutMs?: number;
}

/** A queued run's facts, as the queue keeps them. */
export interface QueuedRunFacts {
  runId: string;
  threadId: string;
  branchId: string;
  detached: boolean;
  messageId: string | null;
  /** `"queued"` until a worker takes it. */
  status: ServerRunStatus;
  startedAt: string;
  endedAt: string | null;
  /** The id of its last event so far (`0` before the first). */
  lastEventId: number;
  /** The id of its oldest event still kept (`lastEventId + 1` when none is). */
  firstBufferedId: number;
}

/** One event of a queued run's stream: its id (from 1), name and data. */
export interface QueuedRunEvent {
  id: number;
  event: string;
  data: unknown;
}

/**
 * Where a server's runs go when workers run them. Events are `run` (or `resumed` after a
 * takeover), one per stream event (named by its mode), then `end` or `error`.
 */
export interface RunQueue {
  /** Queue the run. @throws when the queue cannot be reached. */
  enqueue(run: QueuedRunRequest): Promise<void>;
  /** The run's facts, or `null` when the queue does not know it (never, or expired). */
  facts(runId: string): Promise<QueuedRunFacts | null>;
  /** The thread's runs the queue still knows, oldest first. */
  list(threadId: string): Promise<QueuedRunFacts[]>;
  /**
   * Call `onEvents` with the run's events after id `after`, in order, until the run's `end`
   * or `error` or until the returned function is called.
   */
  follow(runId: string, after: number, onEvents: (events: QueuedRunEvent[]) => void): () => void;
  /** Ask the worker running it (or the next one to take it) to cancel it. */
  cancel(runId: string): Promise<void>;
  /**
   * Which queue this is, for messages: `queue "nodestep-runs" (prefix "bull")`. Optional (with
   * {@link RunQueue.workers}, a queued run's info warns when no worker takes runs).
   */
  readonly description?: string;
  /** How many workers take runs from this queue now. Optional. @throws when the queue cannot be reached. */
  workers?(): Promise<number>;
}

/** How long {@link noWorkerWarning} waits for the queue's worker count, in ms. */
const WORKERS_WAIT_MS = 1_000;

/**
 * The warning of a queue without a worker: `null` when it has one, or cannot say (no
 * `workers()`, or it failed or took more than 1 s).
 */
export async function noWorkerWarning(queue: RunQueue | null): Promise<string | null> {
  if (!queue?.workers) return null;
  let timer: NodeJS.Timeout | undefined;
  // Redis away: no answer in time is no warning (the run's info must not wait for Redis).
  const count = await Promise.race([
    queue.workers().catch(() => null),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), WORKERS_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (count !== 0) return null;
  return `no worker is taking runs from ${queue.description ?? "the run queue"}: queued runs wait until one starts on the same Redis, queue prefix and queue name (nodestep worker --queue-prefix … --queue-name …)`;
}

/**
 * `info` with `warning` when the run is still `"queued"` and its queue has no worker (see
 * {@link noWorkerWarning}); else `info` as it is.
 */
export async function withQueueWarning(
  info: ServerRunInfo,
  queue: RunQueue | null,
): Promise<ServerRunInfo> {
  if (info.status !== "queued") return info;
  const warning = await noWorkerWarning(queue);
  return warning === null ? info : { ...info, warning };
}

/** The terminal events of a queued run. */
const TERMINAL = new Set(["end", "error"]);

/**
 * The registry's run `facts.runId`: the mirror kept here, or a new mirror fed from the queue
 * (a run started by another server). `startedHere` releases the run's slot when it ends.
 */
export function mirrorRun(
  registry: RunRegistry,
  queue: RunQueue,
  facts: Pick<
    QueuedRunFacts,
    "runId" | "threadId" | "branchId" | "detached" | "messageId" | "startedAt" | "status"
  >,
  end: (threadId: string, branchId: string) => Promise<unknown>,
  onEnd: () => void = () => {},
  ui: UIRunReplay | null = null,
): ServerRun {
  const controller = new AbortController();
  const run = registry.create(
    {
      threadId: facts.threadId,
      branchId: facts.branchId,
      detached: facts.detached,
      messageId: facts.messageId,
      runId: facts.runId,
      startedAt: facts.startedAt,
      queued: facts.status === "queued",
      ui,
    },
    controller,
  );
  controller.signal.addEventListener("abort", () => void queue.cancel(run.runId).catch(() => {}), {
    once: true,
  });
  // Events are pushed in order; an `end` waits for the server's own end data (usage included).
  let chain = Promise.resolve();
  const stop = queue.follow(run.runId, 0, (events) => {
    chain = chain.then(async () => {
      for (const e of events) {
        if (run.finished) return;
        if (e.event === "end") {
          // The thread as the worker saw it at the run's end (a later run may have moved it
          // on), with the branch's usage read by this server (the worker has no prices).
          const data = e.data as Record<string, unknown>;
          const own = (await end(run.threadId, run.branchId).catch(() => ({}))) as {
            threadUsage?: unknown;
          };
          run.pushAt(e.id, "end", {
            ...data,
            threadUsage: own.threadUsage ?? data.threadUsage ?? null,
          });
          run.finish(data.status === "interrupted" ? "interrupted" : "done");
        } else if (e.event === "error") {
          run.pushAt(e.id, "error", e.data);
          const body = e.data as { error?: { type?: string; message?: string } };
          const type = body.error?.type ?? "Error";
          const failure = new HttpError(statusOfErrorType(type), type, body.error?.message ?? "");
          run.finish(type === "RunCancelledError" ? "cancelled" : "error", failure);
        } else run.pushAt(e.id, e.event, e.data);
        if (TERMINAL.has(e.event)) {
          stop();
          onEnd();
          registry.retire(run);
        }
      }
    });
  });
  return run;
}

/**
 * The run of `runId` on `threadId`: this server's (its own or a mirror), else a mirror of a
 * run the queue knows. @throws HttpError 404 `UnknownRun`.
 */
export async function findRun(
  registry: RunRegistry,
  queue: RunQueue | null,
  threadId: string,
  runId: string,
  end: (threadId: string, branchId: string) => Promise<unknown>,
): Promise<ServerRun> {
  const local = registry.find(runId);
  if (local && local.threadId === threadId) return local;
  if (queue) {
    const facts = await queue.facts(runId);
    if (facts && facts.threadId === threadId) {
      return registry.find(runId) ?? mirrorRun(registry, queue, facts, end);
    }
  }
  return registry.get(threadId, runId);
}

/**
 * Queue a run (`ServerOptions.runQueue`): takes one of the registry's run slots until the run
 * ends, enqueues it under a new server run id, and returns its mirror once the worker has
 * written its first event after `run` (or after `waitMs`), so that an error the run starts
 * with (a busy thread…) is thrown here, as for a run in process.
 * @throws HttpError 429 (no slot), 400 (an input that is not JSON); the queue's errors; the
 *   run's early error.
 */
export async function startQueuedRun(
  registry: RunRegistry,
  queue: RunQueue,
  req: Omit<QueuedRunRequest, "runId" | "input"> & { input: Record<string, unknown> | null },
  end: (threadId: string, branchId: string) => Promise<unknown>,
  waitMs: number,
  ui: UIRunReplay | null = null,
): Promise<ServerRun> {
  const input = jsonInput(req.input);
  const release = registry.acquire();
  const runId = newServerRunId();
  let run: ServerRun;
  try {
    await queue.enqueue({ ...req, runId, input });
    run = mirrorRun(
      registry,
      queue,
      { ...req, runId, startedAt: new Date().toISOString(), status: "queued" },
      end,
      release,
      ui,
    );
  } catch (e) {
    release();
    throw e;
  }
  await startedStream(firstEvent(run), waitMs);
  return run;
}

/** A run's input as JSON for a worker. @throws HttpError 400 when it is not JSON. */
function jsonInput(input: Record<string, unknown> | null): Record<string, JsonValue> | null {
  if (input === null) return null;
  const bad = findNonJson(input, "input");
  if (bad) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `${bad.path} is not JSON (${bad.problem}); a run for the workers crosses processes`,
    );
  }
  return input as Record<string, JsonValue>;
}

/**
 * An iterator whose first result comes with the queued run's first event after its `run`
 * event (the graph's first, or the run's end), and rejects when that is the run's `error`:
 * for `startedStream`, as a run in process answers its early errors with a status.
 */
function firstEvent(run: ServerRun): AsyncIterator<unknown> {
  return {
    async next() {
      while (run.lastEventId < 2 && !run.finished) await run.changed();
      if (run.status === "error" && run.lastEventId <= 2 && run.failure) throw run.failure;
      return { done: false, value: null };
    },
  };
}
