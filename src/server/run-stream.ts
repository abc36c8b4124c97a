/**
 * Runs of the server as streams any client can join: {@link startServerRun} starts a run and
 * drives it into a {@link ServerRun}'s buffer, whoever listens; {@link joinStream} answers a
 * client with a run's events as server-sent events, from an event id on, with heartbeats and
 * an idle timeout.
 *
 * @module
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { StreamEvent } from "../graph/types.js";
import { errorAnswer, HttpError } from "./errors.js";
import type { RunRegistry, ServerRun, UIRunReplay } from "./run-registry.js";

/** How a run is started by {@link startServerRun}. */
export interface ServerRunStart {
  threadId: string;
  branchId: string;
  /** The run goes on without a client (it is only cancelled by the cancel route). */
  detached: boolean;
  /** A UI stream run's assistant message id. */
  messageId?: string | null;
  /** A UI stream run's replay needs (see {@link UIRunReplay}). */
  ui?: UIRunReplay | null;
  /** Start the graph's stream as run `runId` (the server's id, also the stored one), cancelled by `signal`. */
  start(signal: AbortSignal, runId: string): AsyncIterable<StreamEvent>;
  /** The `end` event's data, read once the run is over; its `status` says how it ended. */
  end(): Promise<{ status: string | null }>;
  /** How long to wait for the first event before answering anyway, in ms. */
  waitMs: number;
  /** Turn a failure of the run into the error answered (a status, a type); default as it is. */
  mapError?: (e: unknown) => unknown;
}

/**
 * Start a run in `registry`: waits up to `waitMs` for its first event (so that a busy thread,
 * an unknown branch or a bad input throw here, and answer with a status), then goes on in the
 * background, buffering `run` (`{ threadId, branchId, runId }`), one event per stream event
 * (named by its mode), then `end` or `error`.
 *
 * @throws HttpError 429 `TooManyRuns` when the server runs its maximum already; the run's
 *   own early errors.
 */
export async function startServerRun(
  registry: RunRegistry,
  how: ServerRunStart,
): Promise<ServerRun> {
  const release = registry.acquire();
  const controller = new AbortController();
  const started = registry.starting(how.threadId, how.branchId);
  // Listed (`"running"`) from now on, also while its first superstep goes on; a run that
  // fails before its first event is listed with its end status as any other.
  const run = registry.create(
    {
      threadId: how.threadId,
      branchId: how.branchId,
      detached: how.detached,
      messageId: how.messageId ?? null,
      ui: how.ui ?? null,
    },
    controller,
  );
  let events: AsyncIterable<StreamEvent>;
  try {
    events = await startedStream(
      how.start(controller.signal, run.runId)[Symbol.asyncIterator](),
      how.waitMs,
    );
  } catch (e) {
    release();
    run.finish(controller.signal.aborted ? "cancelled" : "error", e);
    registry.retire(run);
    started(null);
    throw how.mapError ? how.mapError(e) : e;
  }
  run.push("run", { threadId: how.threadId, branchId: how.branchId, runId: run.runId });
  started(run);
  void (async () => {
    try {
      for await (const e of events) run.push(e.mode, e);
      const end = await how.end();
      run.push("end", end);
      run.finish(end.status === "interrupted" ? "interrupted" : "done");
    } catch (e) {
      run.push("error", errorAnswer(how.mapError ? how.mapError(e) : e).body);
      run.finish(controller.signal.aborted ? "cancelled" : "error", e);
    } finally {
      release();
      registry.retire(run);
    }
  })();
  return run;
}

/** Bounds of a joined stream. */
export interface JoinOptions {
  /** A comment line `: heartbeat` every this many ms; `0` for none. */
  heartbeatMs: number;
  /** With no run event for this long, send `timeout` and close, in ms; `0` for never. */
  idleMs: number;
  /** Called when the client goes away before the run's end. */
  onClientGone?: () => void;
}

/**
 * The event id a client saw last: `?lastEventId=` or the `Last-Event-ID` header (what
 * `EventSource` sends when it reconnects), `0` (from the start) without either.
 * @throws HttpError 400 when it is not an integer ≥ 0.
 */
export function lastEventIdOf(c: Context): number {
  const given = c.req.query("lastEventId") ?? c.req.header("last-event-id");
  if (given === undefined) return 0;
  if (!/^[0-9]{1,15}$/.test(given)) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `lastEventId (or Last-Event-ID) must be an event id, an integer ≥ 0, got "${given}"`,
    );
  }
  return Number(given);
}

function expired(run: ServerRun, after: number): HttpError {
  return new HttpError(
    410,
    "EventsExpired",
    `Run "${run.runId}" keeps its events from id ${run.firstBufferedId} on; events after ${after} are gone (read the thread's state instead: GET /api/threads/${run.threadId}/state)`,
  );
}

/**
 * Answer with `run`'s events after `after` as server-sent events (`id:` the event id), live
 * until the run's `end` or `error`. Between events, `: heartbeat` comment lines every
 * `heartbeatMs`; with no event for `idleMs`, an `event: timeout` with
 * `{ runId, lastEventId, idleMs }` and the stream closes (join again from `lastEventId`).
 *
 * @throws HttpError 410 `EventsExpired` when events after `after` are no longer buffered;
 *   400 when `after` is beyond the run's last event.
 */
export function joinStream(
  c: Context,
  run: ServerRun,
  after: number,
  options: JoinOptions,
): Response {
  if (after > run.lastEventId) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `lastEventId ${after} is beyond run "${run.runId}"'s last event (${run.lastEventId})`,
    );
  }
  if (run.since(after) === null) throw expired(run, after);
  return streamSSE(c, async (sse) => {
    let gone = false;
    let wakeOnAbort: () => void = () => {};
    const aborted = new Promise<"gone">((resolve) => {
      wakeOnAbort = () => resolve("gone");
    });
    sse.onAbort(() => {
      gone = true;
      wakeOnAbort();
      if (!run.finished) options.onClientGone?.();
    });
    const heartbeat =
      options.heartbeatMs > 0
        ? setInterval(() => {
            if (!gone) void sse.write(": heartbeat\n\n").catch(() => {});
          }, options.heartbeatMs)
        : undefined;
    let cursor = after;
    try {
      for (;;) {
        const batch = run.since(cursor);
        if (batch === null) {
          // This client read more slowly than the run wrote and the buffer moved past it.
          await sse.writeSSE({
            event: "error",
            data: JSON.stringify(errorAnswer(expired(run, cursor)).body),
          });
          return;
        }
        // The events buffered since the last write go out in one write (as `writeSSE` would
        // write each: `event:`, `data:`, `id:`), at most WRITE_BATCH at a time: a run that
        // streams tokens faster than the socket drains is not written one event at a time.
        for (let i = 0; i < batch.length; i += WRITE_BATCH) {
          if (gone) return;
          const end = Math.min(batch.length, i + WRITE_BATCH);
          let text = "";
          for (let k = i; k < end; k++) text += sseText(batch[k]!);
          await sse.write(text);
          cursor = batch[end - 1]!.id;
        }
        // Events may have come while this client was written to: read them first.
        if (cursor < run.lastEventId) continue;
        if (run.finished) return;
        let timer: NodeJS.Timeout | undefined;
        const woke = await Promise.race([
          run.changed().then(() => "event" as const),
          aborted,
          ...(options.idleMs > 0
            ? [
                new Promise<"idle">((resolve) => {
                  timer = setTimeout(() => resolve("idle"), options.idleMs);
                }),
              ]
            : []),
        ]);
        clearTimeout(timer);
        if (woke === "gone") return;
        if (woke === "idle") {
          await sse.writeSSE({
            event: "timeout",
            data: JSON.stringify({ runId: run.runId, lastEventId: cursor, idleMs: options.idleMs }),
          });
          return;
        }
      }
    } finally {
      clearInterval(heartbeat);
    }
  });
}

/**
 * Wait up to `waitMs` for the first result of `iterator`, so that errors found when the run
 * starts (a busy thread, an unknown branch, bad input) are thrown here and answer with a
 * status; then an iterable of every result, the first included, that closes `iterator` when
 * left early.
 */
export async function startedStream<T>(
  iterator: AsyncIterator<T>,
  waitMs: number,
): Promise<AsyncIterable<T>> {
  const first = iterator.next();
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([
    first.then(
      () => null,
      (e: unknown) => ({ e }),
    ),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    }),
  ]);
  clearTimeout(timer);
  if (early) throw early.e;
  return {
    [Symbol.asyncIterator]() {
      let pending: Promise<IteratorResult<T>> | null = first;
      return {
        next() {
          const r = pending ?? iterator.next();
          pending = null;
          return r;
        },
        async return() {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * A run's stream events, replayed from its first buffered event and then live, for
 * `toUIMessageChunks`; the run's failure is thrown at the end (an `error` chunk). Leaving early
 * (`return()`) or `signal` firing calls `onGone`.
 */
export function runEvents(
  run: ServerRun,
  signal: AbortSignal | null,
  onGone: () => void,
): AsyncIterable<StreamEvent> {
  let cursor = 0;
  /** Events taken from the run and not yet handed out: `queue[at…]`. */
  let queue: StreamEvent[] = [];
  let at = 0;
  let left = false;
  let failed = false;
  const leave = () => {
    if (left) return;
    left = true;
    if (!run.finished) onGone();
  };
  signal?.addEventListener("abort", leave, { once: true });
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<StreamEvent>> {
        for (;;) {
          if (left) return { done: true, value: undefined };
          if (at < queue.length) return { done: false, value: queue[at++]! };
          queue = [];
          at = 0;
          if (failed) throw run.failure ?? new Error(`run "${run.runId}" failed`);
          const batch = run.since(cursor);
          if (batch === null) {
            throw new Error(
              `Run "${run.runId}" no longer buffers the events after ${cursor} (this reader fell behind)`,
            );
          }
          for (const e of batch) {
            cursor = e.id;
            if (e.event === "error") failed = true;
            else if (e.event !== "run" && e.event !== "end") queue.push(e.data as StreamEvent);
          }
          if (queue.length > 0 || failed) continue;
          if (run.finished && cursor === run.lastEventId) return { done: true, value: undefined };
          await run.changed();
        }
      },
      async return(): Promise<IteratorResult<StreamEvent>> {
        leave();
        queue = [];
        return { done: true, value: undefined };
      },
    }),
  };
}

/** At most this many events go out in one write of a joined stream. */
const WRITE_BATCH = 256;

/**
 * One event as server-sent event text, as Hono's `writeSSE` writes it (its data is JSON, which
 * holds no line break, so it is one `data:` line).
 */
function sseText(e: { event: string; id: number; data: unknown }): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\nid: ${e.id}\n\n`;
}
