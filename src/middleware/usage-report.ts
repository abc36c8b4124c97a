/**
 * Usage reports: totals with their cost, for a run result and a thread.
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import type { StateStore } from "../stores/types.js";
import { type Cost, checkPrices, costOf, type PriceTable } from "./prices.js";
import { UsageLedger, type UsageSummary, type UsageTotals } from "./usage-totals.js";

/** Token totals and, with a price table, their cost. */
export interface UsageReport {
  /** All models together. */
  usage: UsageTotals;
  /** By model (see `UsageSummary.byModel`). */
  byModel: Record<string, UsageTotals>;
  /** The cost at the given prices, or `null` when no price table was given. */
  cost: Cost | null;
}

/**
 * A report of totals, priced when `prices` is given.
 * @throws ValueError for an invalid price table (see `checkPrices`).
 * @example usageReport(await ledger.thread("t1"), prices).cost?.usd // 0.0123
 */
export function usageReport(summary: UsageSummary, prices?: PriceTable | null): UsageReport {
  return {
    usage: summary.usage,
    byModel: summary.byModel,
    cost: prices == null ? null : costOf(summary.byModel, checkPrices(prices)),
  };
}

/** Options of {@link withUsage}. */
export interface WithUsageOptions {
  /** The store the run wrote to (the graph's `stateStore`, or the run's). */
  store: StateStore;
  /** Prices; without them `cost` is `null`. */
  prices?: PriceTable | null;
  /** A ledger to read through (keeps running totals between calls); default a new one. */
  ledger?: UsageLedger;
}

/** A run result with the usage of the run and of its thread's branch. */
export type WithUsage<R> = R & { usage: UsageReport; threadUsage: UsageReport };

/**
 * Add usage and cost to a run result: `usage` for the run's own events, `threadUsage` for the
 * whole branch it ran on (a fork: its parent's up to the fork point, and its own).
 *
 * @param result - what `invoke` returned (a run on a thread).
 * @throws ValueError when the run had no thread (nothing was stored), or the price table is invalid.
 * @example
 * ```ts
 * const result = await withUsage(await agent.invoke(input, { threadId: "t1" }), { store, prices });
 * result.usage.cost?.usd; // 0.00045
 * ```
 */
export async function withUsage<
  R extends { runId: string; threadId: string | null; branchId: string },
>(result: R, options: WithUsageOptions): Promise<WithUsage<R>> {
  if (result.threadId === null) {
    throw new ValueError(
      "withUsage: the run has no threadId, so nothing of it was stored; run with { threadId } on a graph with a stateStore",
    );
  }
  const ledger = options.ledger ?? new UsageLedger(options.store);
  const prices = options.prices ?? null;
  const thread = await ledger.thread(result.threadId, result.branchId);
  const run = await ledger.run(result.threadId, result.runId, result.branchId);
  return { ...result, usage: usageReport(run, prices), threadUsage: usageReport(thread, prices) };
}
