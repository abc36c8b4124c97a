/** How the metrics panel writes numbers: ms, tokens, US dollars. */
import type { Cost } from "../api.ts";

/** `812` → `"812 ms"`, `4210` → `"4.21 s"`. */
export function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** `12345` → `"12,345"`. */
export function tokens(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * A cost in US dollars: `"—"` without a price table, cents for a cent or more
 * (`"$0.36"`), else four significant digits (`"$0.0004500"`); `" + unpriced"` when some
 * model had no price.
 */
export function usd(cost: Cost | null): string {
  if (cost === null) return "—";
  const v = cost.usd;
  const text = v === 0 ? "$0" : v >= 0.01 ? `$${v.toFixed(2)}` : `$${v.toPrecision(4)}`;
  return cost.unpriced.length ? `${text} + unpriced` : text;
}
