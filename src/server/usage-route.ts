/**
 * The server's usage answers: `GET /api/threads/:threadId/usage` and the `usage` of a run's
 * answer, read through one `UsageLedger` per server (running totals from the stored events).
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { checkPrices, type PriceTable } from "../middleware/prices.js";
import { type UsageReport, usageReport } from "../middleware/usage-report.js";
import { UsageLedger } from "../middleware/usage-totals.js";
import type { StateStore } from "../stores/types.js";
import { HttpError } from "./errors.js";
import { onlyQuery } from "./request.js";

/** What the usage answers need: the ledger and the prices. */
export interface UsageAnswers {
  /** The usage of one run on a branch. */
  run(threadId: string, branchId: string, runId: string): Promise<UsageReport>;
  /** The usage of a thread's branch. */
  thread(threadId: string, branchId: string): Promise<UsageReport>;
}

/**
 * Add `GET /api/threads/:threadId/usage[?branchId=]` to `app`: `{ threadId, branchId, usage,
 * byModel, cost }` (`cost` is `null` without prices); 404 for a thread with no events or an
 * unknown branch.
 * @throws ValueError when `prices` is not a valid price table.
 */
export function addUsageRoute(
  app: Hono,
  store: StateStore,
  prices: PriceTable | null,
  read: {
    param(c: Context, name: string): string;
    query(c: Context, name: string): string | undefined;
  },
): UsageAnswers {
  const table = prices === null ? null : checkPrices(prices, "createServer: prices");
  const ledger = new UsageLedger(store);
  app.get("/api/threads/:threadId/usage", onlyQuery("branchId"), async (c) => {
    const threadId = read.param(c, "threadId");
    const branchId = read.query(c, "branchId") ?? "main";
    if (branchId === "main" && (await store.getBranch(threadId, "main")) === null) {
      throw new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
    }
    const summary = await ledger.thread(threadId, branchId);
    return c.json({ threadId, branchId, ...usageReport(summary, table) });
  });
  return {
    async run(threadId, branchId, runId) {
      return usageReport(await ledger.run(threadId, runId, branchId), table);
    },
    async thread(threadId, branchId) {
      return usageReport(await ledger.thread(threadId, branchId), table);
    },
  };
}
