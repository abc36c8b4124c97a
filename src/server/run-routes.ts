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
import type { RunRegistry } from "./run-registry.js";
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
}

/**
 * Add the run routes to `app` (after the host, CORS, API key and body limit checks):
 *
 * - `GET /api/threads/:threadId/runs[?branchId=]`: `{ threadId, runs: ServerRunInfo[] }`,
 *   oldest first: the runs of this server process, going on or finished less than
 *   `keepFinishedMs` ago.
 * - `GET /api/threads/:threadId/runs/:runId`: the run's `ServerRunInfo`; `404 UnknownRun`.
 * - `GET /api/threads/:threadId/runs/:runId/stream[?lastEventId=]` (or `Last-Event-ID`): the
 *   run's events after that id as server-sent events; `410 EventsExpired` when they are no
 *   longer buffered, `400` for an id that is not one.
 * - `POST /api/threads/:threadId/runs/:runId/cancel`: cancels it, waits up to `cancelWaitMs`
 *   for it to stop, answers its `ServerRunInfo`; `409 RunNotActive` when it has ended.
 */
export function addRunRoutes(app: Hono, registry: RunRegistry, helpers: RunRouteHelpers): void {
  const { param, query, readJson } = helpers;

  app.get("/api/threads/:threadId/runs", (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId");
    return c.json({ threadId, runs: registry.list(threadId, branchId).map((r) => r.info()) });
  });

  app.get("/api/threads/:threadId/runs/:runId", (c) => {
    const run = registry.get(param(c, "threadId"), param(c, "runId"));
    return c.json(run.info());
  });

  app.get("/api/threads/:threadId/runs/:runId/stream", (c) => {
    const run = registry.get(param(c, "threadId"), param(c, "runId"));
    return joinStream(c, run, lastEventIdOf(c), helpers.join);
  });

  app.post("/api/threads/:threadId/runs/:runId/cancel", async (c) => {
    const run = registry.get(param(c, "threadId"), param(c, "runId"));
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
