/**
 * The routes of a server's runs (docs/background-runs.md): list a thread's runs, read one,
 * join its stream from an event id on, and cancel it. (Rejoining the UI message stream of a
 * thread's active run, `useChat({ resume: true })`, is in ui-stream-route.ts.)
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import { findRun, noWorkerWarning, type RunQueue, withQueueWarning } from "./run-queue.js";
import type { RunRegistry, ServerRun, ServerRunInfo } from "./run-registry.js";
import { type JoinOptions, joinStream, lastEventIdOf } from "./run-stream.js";

/** What the run routes need from the server. */
export interface RunRouteHelpers {
  param(c: Context, name: string): string;
  query(c: Context, name: string): string | undefined;
  readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T>;
  /** Heartbeats and idle timeout of joined streams. */
  join: Omit<JoinOptions, "onClientGone">;
  /** How long `…/cancel` waits for the run to stop before answering, in ms. */
  cancelWaitMs: number;
  /** Where the workers' runs are (`ServerOptions.runQueue`), or `null`. */
  runQueue: RunQueue | null;
  /** A finished run's `end` data, read from the store (for mirrors of queued runs). */
  end(threadId: string, branchId: string): Promise<unknown>;
}

/**
 * Add the run routes to `app` (after the host, CORS, API key and body limit checks):
 *
 * - `GET /api/threads/:threadId/runs[?branchId=]`: `{ threadId, runs: ServerRunInfo[] }`,
 *   oldest first: the runs of this server process, going on or finished less than
 *   `keepFinishedMs` ago (with a run queue, every server's). A run still `"queued"` has a
 *   `warning` when the queue has no worker.
 * - `GET /api/threads/:threadId/runs/:runId`: the run's `ServerRunInfo`; `404 UnknownRun`.
 * - `GET /api/threads/:threadId/runs/:runId/stream[?lastEventId=]` (or `Last-Event-ID`): the
 *   run's events after that id as server-sent events; `410 EventsExpired` when they are no
 *   longer buffered, `400` for an id that is not one.
 * - `POST /api/threads/:threadId/runs/:runId/cancel`: cancels it, waits up to `cancelWaitMs`
 *   for it to stop, answers its `ServerRunInfo`; `409 RunNotActive` when it has ended.
 */
export function addRunRoutes(app: Hono, registry: RunRegistry, helpers: RunRouteHelpers): void {
  const { param, query, readJson, runQueue } = helpers;
  const find = (c: Context) =>
    findRun(registry, runQueue, param(c, "threadId"), param(c, "runId"), helpers.end);

  app.get("/api/threads/:threadId/runs", onlyQuery("branchId"), async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId");
    const runs: ServerRunInfo[] = registry.list(threadId, branchId).map((r) => r.info());
    if (runQueue) {
      // The runs of every server on the queue: those not mirrored here are read from Redis.
      const known = new Set(runs.map((r) => r.runId));
      for (const f of await runQueue.list(threadId)) {
        if (known.has(f.runId) || (branchId !== undefined && f.branchId !== branchId)) continue;
        runs.push({
          runId: f.runId,
          threadId: f.threadId,
          branchId: f.branchId,
          status: f.status,
          detached: f.detached,
          startedAt: f.startedAt,
          endedAt: f.endedAt,
          lastEventId: f.lastEventId,
          firstBufferedId: f.firstBufferedId,
        });
      }
      runs.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    }
    // One look at the queue's workers for all the queued runs.
    const warning = runs.some((r) => r.status === "queued")
      ? await noWorkerWarning(runQueue)
      : null;
    return c.json({
      threadId,
      runs:
        warning === null ? runs : runs.map((r) => (r.status === "queued" ? { ...r, warning } : r)),
    });
  });

  app.get("/api/threads/:threadId/runs/:runId", onlyQuery(), async (c) => {
    const run = await find(c);
    return c.json(await withQueueWarning(run.info(), runQueue));
  });

  app.get("/api/threads/:threadId/runs/:runId/stream", onlyQuery("lastEventId"), async (c) => {
    const run = await find(c);
    const after = lastEventIdOf(c);
    // A mirror just made reads the stream from Redis: let it catch up to `after` first.
    await caughtUp(run, after);
    return joinStream(c, run, after, helpers.join);
  });

  app.post("/api/threads/:threadId/runs/:runId/cancel", onlyQuery(), async (c) => {
    const run = await find(c);
    await readJson(c, z.strictObject({}));
    if (run.finished) {
      throw new HttpError(
        409,
        "RunNotActive",
        `Run "${run.runId}" has already ended (status "${run.status}")`,
      );
    }
    run.controller.abort();
    const deadline = Date.now() + helpers.cancelWaitMs;
    while (!run.finished && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        run.changed(),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        }),
      ]);
      clearTimeout(timer);
    }
    return c.json(run.info());
  });
}

/** Wait (up to 2 s) until a run's buffer has its events up to `after`, or the run has ended. */
async function caughtUp(run: ServerRun, after: number): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (run.lastEventId < after && !run.finished && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      run.changed(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
      }),
    ]);
    clearTimeout(timer);
  }
}
