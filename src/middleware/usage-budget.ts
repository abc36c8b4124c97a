/**
 * `UsageBudgetMiddleware`: stop a thread, or pause it for approval, once it has used a number
 * of tokens or an amount of money.
 *
 * @module
 */
import type { ChatRequest } from "../chat/types.js";
import { GraphConfigError, UsageBudgetExceededError, ValueError } from "../errors/index.js";
import { isPlainObject } from "../json/index.js";
import type { StateStore } from "../stores/types.js";
import { checkPrices, costOf, type PriceTable } from "./prices.js";
import type { Middleware, ModelMiddlewareContext } from "./types.js";
import { BUDGET_KEY_PREFIX, UsageLedger } from "./usage-totals.js";

/** Options of {@link UsageBudgetMiddleware}; at least one of `maxTokens` and `maxCostUsd`. */
export interface UsageBudgetOptions {
  /** Tokens (`totalTokens`) a thread's branch may use; a number ≥ 0. */
  maxTokens?: number;
  /** US dollars a thread's branch may cost at `prices`; a number ≥ 0. */
  maxCostUsd?: number;
  /** Prices of the models (required with `maxCostUsd`). */
  prices?: PriceTable;
  /** Past the budget: `"error"` (default) throws `UsageBudgetExceededError`; `"interrupt"` pauses for approval. */
  onExceed?: "error" | "interrupt";
  /** The ledger totals are read through; default one per store, made on first use. */
  ledger?: UsageLedger;
}

/**
 * The question of a budget pause (`onExceed: "interrupt"`), asked under the key
 * `"usage-budget:<taskId>"`. Answer `true` (or `{ approve: true }`) to make this one call;
 * `{ approve: true, addTokens, addCostUsd }` to raise the branch's budget by that much (kept
 * in the log: later calls see the raised budget, cold too); `false` or `{ approve: false }`
 * stops with `UsageBudgetExceededError`.
 */
export interface UsageBudgetRequest {
  kind: "usage_budget";
  threadId: string;
  branchId: string;
  node: string;
  usedTokens: number;
  maxTokens: number | null;
  usedCostUsd: number | null;
  maxCostUsd: number | null;
}

/** The middleware made by {@link UsageBudgetMiddleware}. */
export interface UsageBudgetMiddleware extends Middleware {
  readonly name: "UsageBudgetMiddleware";
  beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): Promise<undefined>;
}

function limit(name: string, value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ValueError(
      `UsageBudgetMiddleware: ${name} must be a number ≥ 0, got ${String(value)}`,
    );
  }
  return value;
}

const usd = (n: number) => `$${Math.round(n * 1e6) / 1e6}`;

/**
 * Limit what a thread spends on model calls.
 *
 * Before each model call, its `beforeModel` hook reads the branch's totals from the event log
 * (through a {@link UsageLedger}: a running total, no replay) — the responses stored so far,
 * so the call that passes the budget is made, and the one after it is refused. When the
 * branch has used `maxTokens` tokens or more, or cost `maxCostUsd` or more at `prices`:
 * - `onExceed: "error"`: throws `UsageBudgetExceededError` (`"Usage budget reached on thread
 *   "t1" (branch "main"): 120 tokens used of 100 ..."`), which fails the run;
 * - `onExceed: "interrupt"`: pauses with a {@link UsageBudgetRequest}; see it for the answers.
 *
 * A fork has the totals of its branch (its parent's up to the fork point, and its own), so a
 * fork made before the budget was passed can go on. Needs a run on a thread with a state store.
 *
 * @param options - see {@link UsageBudgetOptions}.
 * @throws ValueError when neither limit is given, a limit is not a number ≥ 0, `maxCostUsd`
 *   comes without `prices`, `prices` is invalid, or `onExceed` is neither `"error"` nor `"interrupt"`.
 * When a call is checked: `GraphConfigError` for a run without a thread or a store.
 * @example
 * ```ts
 * const budget = UsageBudgetMiddleware({ maxCostUsd: 0.5, prices, onExceed: "interrupt" });
 * const agent = buildReactAgent(chat, { tools, stateStore, middleware: [budget] });
 * ```
 */
export function UsageBudgetMiddleware(options: UsageBudgetOptions): UsageBudgetMiddleware {
  if (typeof options !== "object" || options === null) {
    throw new ValueError("UsageBudgetMiddleware: options { maxTokens, maxCostUsd } are required");
  }
  const maxTokens = limit("maxTokens", options.maxTokens);
  const maxCostUsd = limit("maxCostUsd", options.maxCostUsd);
  if (maxTokens === null && maxCostUsd === null) {
    throw new ValueError("UsageBudgetMiddleware: give maxTokens, maxCostUsd or both");
  }
  if (maxCostUsd !== null && options.prices === undefined) {
    throw new ValueError("UsageBudgetMiddleware: maxCostUsd needs prices (a price table by model)");
  }
  const prices =
    options.prices === undefined
      ? null
      : checkPrices(options.prices, "UsageBudgetMiddleware: prices");
  const onExceed = options.onExceed ?? "error";
  if (onExceed !== "error" && onExceed !== "interrupt") {
    throw new ValueError(
      `UsageBudgetMiddleware: onExceed must be "error" or "interrupt", got ${JSON.stringify(onExceed)}`,
    );
  }
  const ledgers = new WeakMap<StateStore, UsageLedger>();

  return {
    name: "UsageBudgetMiddleware",
    async beforeModel(_request, ctx) {
      const n = ctx.node;
      if (n.threadId === null || n.stateStore === null) {
        throw new GraphConfigError(
          `UsageBudgetMiddleware (node "${n.node}" of graph "${n.graphName}"): the run needs a threadId and a stateStore, where the totals are read from`,
        );
      }
      let ledger = options.ledger ?? ledgers.get(n.stateStore);
      if (ledger === undefined) {
        ledger = new UsageLedger(n.stateStore);
        ledgers.set(n.stateStore, ledger);
      }
      const s = await ledger.thread(n.threadId, n.branchId);
      const usedTokens = s.usage.totalTokens;
      const tokenLimit = maxTokens === null ? null : maxTokens + s.approved.tokens;
      const usedCostUsd = prices === null ? null : costOf(s.byModel, prices).usd;
      const costLimit =
        maxCostUsd === null ? null : Math.round((maxCostUsd + s.approved.usd) * 1e9) / 1e9;
      const overTokens = tokenLimit !== null && usedTokens >= tokenLimit;
      const overCost = costLimit !== null && usedCostUsd !== null && usedCostUsd >= costLimit;
      if (!overTokens && !overCost) return undefined;
      const fields = {
        threadId: n.threadId,
        branchId: n.branchId,
        node: n.node,
        usedTokens,
        maxTokens: tokenLimit,
        usedCostUsd: maxCostUsd === null ? null : usedCostUsd,
        maxCostUsd: costLimit,
      };
      const what = overTokens
        ? `${usedTokens} tokens used of ${tokenLimit}`
        : `${usd(usedCostUsd ?? 0)} spent of ${usd(costLimit ?? 0)}`;
      const where = `thread "${n.threadId}" (branch "${n.branchId}")`;
      if (onExceed === "interrupt") {
        const question: UsageBudgetRequest = { kind: "usage_budget", ...fields };
        const answer = n.interrupt(question as unknown as Parameters<typeof n.interrupt>[0], {
          key: `${BUDGET_KEY_PREFIX}${n.taskId}`,
        });
        if (answer === true || (isPlainObject(answer) && answer.approve === true)) return undefined;
        throw new UsageBudgetExceededError(
          `Usage budget reached on ${where}: ${what}; the model call of node "${n.node}" was declined`,
          fields,
        );
      }
      throw new UsageBudgetExceededError(
        `Usage budget reached on ${where}: ${what}; node "${n.node}" may not call the model`,
        fields,
      );
    },
  };
}
