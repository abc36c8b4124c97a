/**
 * `GET /api/threads/:threadId/metrics`: per run and per node latency, model calls, tokens and
 * cost, and each run's trace, read from the branch's events (see `runMetrics`).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import type { PriceTable } from "../middleware/prices.js";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";
import { runMetrics } from "./run-metrics.js";
import type { ServedGraph } from "./types.js";

/**
 * Add `GET /api/threads/:threadId/metrics[?branchId=&runId=]` to `app`: `{ threadId, branchId,
 * runs }` (`RunMetrics`, in the order the runs started; with `runId`, that run only). 404
 * `UnknownThread` for a thread with no events, `UnknownBranch` for an unknown branch and
 * `UnknownRun` for a run with no events on the branch.
 *
 * @param prices - a checked price table, or `null` (then every `cost` is `null`).
 */
export function addMetricsRoute(
  app: Hono,
  graph: ServedGraph,
  prices: PriceTable | null,
  read: {
    param(c: Context, name: string): string;
    query(c: Context, name: string): string | undefined;
  },
): void {
  app.get("/api/threads/:threadId/metrics", onlyQuery("branchId", "runId"), async (c) => {
    const threadId = read.param(c, "threadId");
    const branchId = read.query(c, "branchId") ?? "main";
    const runId = read.query(c, "runId");
    const events = await graph.history(threadId, { branchId });
    if (events.length === 0) {
      throw new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
    }
    let runs = runMetrics(graph.state, events, graph.name, prices, { branchId });
    if (runId !== undefined) {
      runs = runs.filter((r) => r.runId === runId);
      if (runs.length === 0) {
        throw new HttpError(
          404,
          "UnknownRun",
          `Run "${runId}" has no events on branch "${branchId}" of thread "${threadId}"`,
        );
      }
    }
    return c.json({ threadId, branchId, runs });
  });
}
