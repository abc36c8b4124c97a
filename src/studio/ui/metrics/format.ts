/** How the metrics panel writes numbers: ms, tokens, US dollars. */
import type { Cost, TraceSpan } from "../api.ts";

/** `812` → `"812 ms"`, `4210` → `"4.21 s"`. */
export function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** `12345` → `"12,345"`. */
export function tokens(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * A token count in at most five characters, for narrow columns: `950` → `"950"`, `12345` →
 * `"12.3k"`, `123456` → `"123k"`, `4_200_000` → `"4.2M"` (`tokens` gives the exact count).
 */
export function compactTokens(value: number): string {
  const scaled = (divisor: number, unit: string) => {
    const v = value / divisor;
    return `${v < 99.95 ? Math.round(v * 10) / 10 : Math.round(v)}${unit}`;
  };
  if (value < 1000) return String(value);
  if (value < 999_500) return scaled(1e3, "k");
  if (value < 999_500_000) return scaled(1e6, "M");
  return scaled(1e9, "G");
}

/**
 * A trace span's name as shown after its kind: the name, but `""` when it only repeats the
 * kind, and `"(name not reported)"` for a model call whose answer named no model (the server
 * calls it `"unknown"`, as the usage totals do) — never "model model".
 */
export function spanName(span: Pick<TraceSpan, "kind" | "name">): string {
  if (span.kind === "model" && (span.name === "unknown" || span.name === "model"))
    return "(name not reported)";
  return span.name === span.kind ? "" : span.name;
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

/**
 * A run in a narrow column: its number on the branch and the start of its id, `"#2 31f0f3"`
 * (the id without its `r-` / `run-` prefix; the whole id goes in the cell's title).
 *
 * @param index - the run's place on the branch, from 0.
 */
export function runLabel(runId: string, index: number): string {
  return `#${index + 1} ${runId.replace(/^(run|r)-/, "").slice(0, 6)}`;
}
