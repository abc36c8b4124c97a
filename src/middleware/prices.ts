/**
 * Price tables and the cost of token usage.
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import { ownKey, type UsageTotals } from "./usage-totals.js";

/**
 * The price of one model, in US dollars per million tokens.
 *
 * - `inputPerMillion`: input tokens not read from the prompt cache;
 * - `outputPerMillion`: output tokens (reasoning included, unless `reasoningPerMillion` is given);
 * - `cachedInputPerMillion`: input tokens read from the cache; default `inputPerMillion`;
 * - `reasoningPerMillion`: reasoning tokens, when the provider prices them apart; default `outputPerMillion`.
 *
 * @example { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 } // gpt-4o-mini
 */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
  cachedInputPerMillion?: number;
  reasoningPerMillion?: number;
}

/**
 * Prices by model name, as you supply them (nodestep ships no prices: they change). A model
 * is priced by its entry, else by the longest entry its name starts with (`"gpt-4o-mini"`
 * prices `"gpt-4o-mini-2024-07-18"`).
 *
 * @example
 * ```ts
 * const prices: PriceTable = {
 *   "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
 *   "claude-sonnet-4": { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
 * };
 * ```
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** What some usage cost. */
export interface Cost {
  /** The cost of the priced models, in US dollars, rounded to 1e-9 (a billionth of a dollar). */
  usd: number;
  /** Cost by model (priced models only), in US dollars, rounded the same way. */
  byModel: Record<string, number>;
  /** Models that used tokens but have no price in the table (their tokens are not in `usd`). */
  unpriced: string[];
}

/**
 * Check a price table: each entry an object of finite numbers ≥ 0.
 * @throws ValueError naming the model and the field at fault.
 * @example checkPrices({ "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 } })
 */
export function checkPrices(prices: unknown, where = "prices"): PriceTable {
  if (typeof prices !== "object" || prices === null || Array.isArray(prices)) {
    throw new ValueError(`${where} must be an object of prices by model name`);
  }
  for (const [model, price] of Object.entries(prices)) {
    if (typeof price !== "object" || price === null) {
      throw new ValueError(
        `${where}["${model}"] must be { inputPerMillion, outputPerMillion, ... }`,
      );
    }
    for (const key of [
      "inputPerMillion",
      "outputPerMillion",
      "cachedInputPerMillion",
      "reasoningPerMillion",
    ] as const) {
      const v = (price as Record<string, unknown>)[key];
      const optional = key === "cachedInputPerMillion" || key === "reasoningPerMillion";
      if (v === undefined && optional) continue;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        throw new ValueError(
          `${where}["${model}"].${key} must be a number ≥ 0 (US dollars per million tokens), got ${v === undefined ? "nothing" : String(v)}`,
        );
      }
    }
    for (const key of Object.keys(price)) {
      if (
        ![
          "inputPerMillion",
          "outputPerMillion",
          "cachedInputPerMillion",
          "reasoningPerMillion",
        ].includes(key)
      ) {
        throw new ValueError(`${where}["${model}"] has an unknown field "${key}"`);
      }
    }
  }
  return prices as PriceTable;
}

/**
 * The price of a model: its entry, else the longest entry its name starts with, else `null`.
 * @example priceOf(prices, "gpt-4o-mini-2024-07-18") // prices["gpt-4o-mini"]
 */
export function priceOf(prices: PriceTable, model: string): ModelPrice | null {
  const exact = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (exact !== undefined) return exact;
  let best: string | null = null;
  for (const key of Object.keys(prices)) {
    if (model.startsWith(key) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : prices[best]!;
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;

/**
 * The cost of one model's usage at a price, in US dollars (not rounded): uncached input at
 * `inputPerMillion`, cached input at `cachedInputPerMillion`, output less reasoning at
 * `outputPerMillion`, reasoning at `reasoningPerMillion`.
 * @example usageCost({ inputTokens: 1000, outputTokens: 500, ... }, { inputPerMillion: 0.15, outputPerMillion: 0.6 }) // 0.00045
 */
export function usageCost(usage: UsageTotals, price: ModelPrice): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const reasoning = Math.min(usage.reasoningTokens, usage.outputTokens);
  const micro =
    (usage.inputTokens - cached) * price.inputPerMillion +
    cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
    (usage.outputTokens - reasoning) * price.outputPerMillion +
    reasoning * (price.reasoningPerMillion ?? price.outputPerMillion);
  return micro / 1e6;
}

/**
 * The cost of usage by model.
 * @example costOf({ "gpt-4o-mini": totals }, prices) // { usd: 0.00045, byModel: { "gpt-4o-mini": 0.00045 }, unpriced: [] }
 */
export function costOf(byModel: Readonly<Record<string, UsageTotals>>, prices: PriceTable): Cost {
  const out: Cost = { usd: 0, byModel: {}, unpriced: [] };
  let total = 0;
  for (const [model, usage] of Object.entries(byModel)) {
    const price = priceOf(prices, model);
    if (price === null) {
      if (usage.totalTokens > 0) out.unpriced.push(model);
      continue;
    }
    const usd = usageCost(usage, price);
    total += usd;
    ownKey(out.byModel, model, round(usd));
  }
  out.usd = round(total);
  out.unpriced.sort();
  return out;
}
