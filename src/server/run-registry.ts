/**
 * The server's runs in this process: each run's events in a bounded buffer that any client can
 * join (from the start or after an event id it saw), the run's status, its cancelling, and the
 * limit on concurrent runs.
 *
 * Nothing here is durable: the thread's state is in the store, the live stream and its buffer
 * only in this process (docs/background-runs.md).
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import type { UIStreamChunk } from "../integrations/ai-sdk-ui/types.js";
import { HttpError } from "./errors.js";

/** One event of a run as the server sends it: `id:` (from 1, per run), `event:` and `data:`. */
export interface RunEntry {
  id: number;
  event: string;
  data: unknown;
}

/**
 * Where a run is: `"queued"` (on a server with a run queue: waiting for a worker to take it),
 * `"running"`, or how it ended.
 */
export type ServerRunStatus = "queued" | "running" | "done" | "interrupted" | "error" | "cancelled";

/** A run as `GET /api/threads/:id/runs` lists it. */
export interface ServerRunInfo {
  /** The server's id of the run (`r-` and 16 hex digits). */
  runId: string;
  threadId: string;
  branchId: string;
  status: ServerRunStatus;
  /** `true` when it goes on without a client (`detach`, `onDisconnect: "continue"`). */
  detached: boolean;
  /** ISO 8601 times. */
  startedAt: string;
  endedAt: string | null;
  /** The id of the run's last event so far (`0` before the first). */
  lastEventId: number;
  /** The id of the oldest event still buffered (joins from before it answer `410`). */
  firstBufferedId: number;
  /**
   * Only while the run is `"queued"` and its queue has no worker at all, a sentence saying so:
   * `no worker is taking runs from queue "nodestep-runs" (prefix "bull"): queued runs wait
   * until one starts on the same Redis, queue prefix and queue name (…)`.
   */
  warning?: string;
}

/** Bounds of a {@link RunRegistry}. */
export interface RunRegistryOptions {
  /** Events kept per run for joining clients; default 10,000 (the oldest go first). */
  bufferEvents: number;
  /** How long a finished run stays joinable and listed, in ms; default 300,000 (5 minutes). */
  keepFinishedMs: number;
  /** At most this many finished runs are kept (the oldest finished go first); default 1,000. */
  keepFinishedRuns: number;
  /** Runs going on at once in this server (every kind of run); default 16. */
  maxConcurrentRuns: number;
}

/**
 * What a UI stream run keeps for `useChat({ resume: true })`: a replay rebuilds the whole
 * assistant message, so it needs the message the run answers or continues.
 */
export interface UIRunReplay {
  /** The id of the user message a new turn answers; `null` when the run continues a message. */
  userMessageId: string | null;
  /** Chunks that rebuild the message a continuing run goes on with, as it was when the run started (none for a new turn). */
  prefix: readonly UIStreamChunk[];
}

/** What a run is started with. */
export interface RunMeta {
  threadId: string;
  branchId: string;
  detached: boolean;
  messageId?: string | null;
  ui?: UIRunReplay | null;
  /** The run's id; default a new `r-` id. A queued run's is its job's (`src/server/run-queue.ts`). */
  runId?: string;
  /** ISO 8601; default now. */
  startedAt?: string;
  /** A run of the queue not yet taken by a worker: `"queued"` until its first event. */
  queued?: boolean;
}

/** One run of the server: its buffer, its listeners and its cancelling. */
export class ServerRun {
  readonly runId: string;
  readonly threadId: string;
  readonly branchId: string;
  readonly detached: boolean;
  /** The assistant message id of a UI stream run (what a resumed `useChat` continues). */
  readonly messageId: string | null;
  /** What a replay of a UI stream run needs (`null` for other runs). */
  readonly ui: UIRunReplay | null;
  readonly startedAt: string;
  /** Aborting it cancels the run (the cancel route, or its client leaving). */
  readonly controller: AbortController;
  status: ServerRunStatus = "running";
  endedAt: string | null = null;
  /** What the run failed with, for a replay (the UI stream's `error` chunk). */
  failure: unknown = null;
  /** The buffered events are `entries[head…]`, with ids from `firstBufferedId` up, one apart. */
  private entries: RunEntry[] = [];
  private head = 0;
  private lastId = 0;
  private readonly limit: number;
  private waiters: Array<() => void> = [];

  constructor(meta: RunMeta, limit: number, controller: AbortController) {
    this.controller = controller;
    this.runId = meta.runId ?? newServerRunId();
    this.startedAt = meta.startedAt ?? new Date().toISOString();
    this.threadId = meta.threadId;
    this.branchId = meta.branchId;
    this.detached = meta.detached;
    this.messageId = meta.messageId ?? null;
    this.ui = meta.ui ?? null;
    if (meta.queued) this.status = "queued";
    this.limit = limit;
  }

  /** The id of the last event (`0` before any). */
  get lastEventId(): number {
    return this.lastId;
  }

  /** The id of the oldest buffered event (`lastEventId + 1` when none is buffered). */
  get firstBufferedId(): number {
    return this.entries[this.head]?.id ?? this.lastId + 1;
  }

  get finished(): boolean {
    return this.status !== "running" && this.status !== "queued";
  }

  /** Add an event; drops the oldest beyond the buffer's limit; wakes the joined clients. */
  push(event: string, data: unknown): void {
    this.entries.push({ id: ++this.lastId, event, data });
    if (this.entries.length - this.head > this.limit) {
      // Dropped by moving the head; the array is compacted once half of it is dropped.
      this.entries[this.head++] = undefined as unknown as RunEntry;
      if (this.head * 2 > this.entries.length) {
        this.entries = this.entries.slice(this.head);
        this.head = 0;
      }
    }
    this.wake();
  }

  /**
   * Add an event of id `id` (a queued run's, read from its stream): ids only grow; an id that
   * skips some (the stream dropped its oldest) leaves them out of the buffer.
   */
  pushAt(id: number, event: string, data: unknown): void {
    if (id <= this.lastId) return;
    // A worker's first event (`run`) says it has taken the run.
    if (this.status === "queued") this.status = "running";
    this.lastId = id;
    this.entries.push({ id, event, data });
    if (this.entries.length > this.limit) this.entries.shift();
    this.wake();
  }

  /** End the run with `status`; wakes the joined clients. */
  finish(status: Exclude<ServerRunStatus, "running" | "queued">, failure: unknown = null): void {
    this.status = status;
    this.failure = failure;
    this.endedAt = new Date().toISOString();
    this.wake();
  }

  /**
   * The buffered events after `afterId`, or `null` when some of them are no longer buffered
   * (`afterId + 1 < firstBufferedId`).
   */
  since(afterId: number): RunEntry[] | null {
    const first = this.firstBufferedId;
    if (afterId + 1 < first) return null;
    // Ids are contiguous: the events after `afterId` start at a known index (no scan).
    return this.entries.slice(this.head + Math.max(0, afterId + 1 - first));
  }

  /** Resolves at the next event or at the end of the run. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  info(): ServerRunInfo {
    return {
      runId: this.runId,
      threadId: this.threadId,
      branchId: this.branchId,
      status: this.status,
      detached: this.detached,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      lastEventId: this.lastId,
      firstBufferedId: this.firstBufferedId,
    };
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** A new server run id: `r-` and 16 hex digits. */
export function newServerRunId(): string {
  return `r-${randomBytes(8).toString("hex")}`;
}

/** The runs of one server process, and the count of the runs going on. */
export class RunRegistry {
  readonly options: RunRegistryOptions;
  private readonly runs = new Map<string, ServerRun>();
  private active = 0;
  /** The ids of the finished runs kept, oldest finished first. */
  private readonly finishedOrder: string[] = [];
  /** Runs being started (waiting for their first event, not created yet). */
  private readonly startingRuns = new Set<{
    threadId: string;
    branchId: string;
    run: Promise<ServerRun | null>;
  }>();

  constructor(options: RunRegistryOptions) {
    this.options = options;
  }

  /**
   * Take one of the `maxConcurrentRuns` slots; call the returned function (once) when the run
   * ends. @throws HttpError 429 `TooManyRuns` when all are taken.
   */
  acquire(): () => void {
    if (this.active >= this.options.maxConcurrentRuns) {
      throw new HttpError(
        429,
        "TooManyRuns",
        `This server runs at most ${this.options.maxConcurrentRuns} runs at once; try again when one has finished`,
      );
    }
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
    };
  }

  /** A new run, listed and joinable until `keepFinishedMs` after it ends. */
  create(meta: RunMeta, controller: AbortController): ServerRun {
    const run = new ServerRun(meta, this.options.bufferEvents, controller);
    this.runs.set(run.runId, run);
    return run;
  }

  /**
   * Forget `run` once it has been finished for `keepFinishedMs`, or at once when more than
   * `keepFinishedRuns` finished runs are kept (the oldest finished go first).
   */
  retire(run: ServerRun): void {
    this.finishedOrder.push(run.runId);
    while (this.finishedOrder.length > this.options.keepFinishedRuns) {
      const oldest = this.finishedOrder.shift();
      if (oldest !== undefined) this.runs.delete(oldest);
    }
    setTimeout(() => {
      this.runs.delete(run.runId);
      const at = this.finishedOrder.indexOf(run.runId);
      if (at >= 0) this.finishedOrder.splice(at, 1);
    }, this.options.keepFinishedMs).unref();
  }

  /** The run of `runId` on `threadId`. @throws HttpError 404 `UnknownRun`. */
  get(threadId: string, runId: string): ServerRun {
    const run = this.runs.get(runId);
    if (!run || run.threadId !== threadId) {
      throw new HttpError(
        404,
        "UnknownRun",
        `Thread "${threadId}" has no run "${runId}" on this server (finished runs are kept ${this.options.keepFinishedMs} ms)`,
      );
    }
    return run;
  }

  /** The run of `runId` kept here, or `undefined`. */
  find(runId: string): ServerRun | undefined {
    return this.runs.get(runId);
  }

  /** Every run kept here that has not ended. */
  running(): ServerRun[] {
    return [...this.runs.values()].filter((r) => !r.finished);
  }

  /** The thread's runs, oldest first; only `branchId`'s when given. */
  list(threadId: string, branchId?: string): ServerRun[] {
    return [...this.runs.values()].filter(
      (r) => r.threadId === threadId && (branchId === undefined || r.branchId === branchId),
    );
  }

  /** The thread branch's run going on, or `null`. */
  current(threadId: string, branchId: string): ServerRun | null {
    return this.list(threadId, branchId).find((r) => !r.finished) ?? null;
  }

  /**
   * Note that a run of the thread's branch is being started (it is created once its first
   * event comes); call the returned function once with the run, or `null` when it failed to
   * start.
   */
  starting(threadId: string, branchId: string): (run: ServerRun | null) => void {
    let settle: (run: ServerRun | null) => void = () => {};
    const entry = {
      threadId,
      branchId,
      run: new Promise<ServerRun | null>((resolve) => {
        settle = resolve;
      }),
    };
    this.startingRuns.add(entry);
    return (run) => {
      this.startingRuns.delete(entry);
      settle(run);
    };
  }

  /**
   * The thread branch's run going on; else the first run being started on it, once it is
   * (`null` when it fails to start); else `null`.
   */
  async currentOrStarting(threadId: string, branchId: string): Promise<ServerRun | null> {
    const run = this.current(threadId, branchId);
    if (run) return run;
    for (const s of this.startingRuns) {
      if (s.threadId === threadId && s.branchId === branchId) {
        const started = await s.run;
        if (started && !started.finished) return started;
        return this.current(threadId, branchId);
      }
    }
    return null;
  }
}
