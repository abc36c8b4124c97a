/**
 * Listing the items of a `PostgresMemoryStore` under a namespace prefix, in (namespace, key)
 * order: `list`, and `search` without a query. With a filter, rows are read a page at a time
 * until the page asked for is full.
 *
 * @module
 */
import type { ValueTest } from "../../memory/filter.js";
import { prefixRange } from "../../memory/internal.js";
import type { Namespace, SearchItem } from "../../memory/types.js";
import {
  COLS,
  LIVE,
  type Row,
  rowItem,
  type SearchContext,
  TOP,
} from "./postgres-memory-search.js";

/** The live items under `prefix`, `offset` skipped, at most `limit`, those `test` passes (all without one). */
export async function listRows(
  ctx: SearchContext,
  prefix: Namespace,
  limit: number,
  offset: number,
  test: ValueTest | null,
): Promise<SearchItem[]> {
  const { lo, hi } = prefixRange(prefix);
  const sql = `SELECT ${COLS} FROM ${ctx.items} WHERE ns >= $1 AND ns < $2 AND ${LIVE.replace("$NOW", "$3")}
ORDER BY ns, key LIMIT $4 OFFSET $5`;
  const now = ctx.now;
  if (!test) {
    const res = await ctx.query<Row>(sql, [lo, hi ?? TOP, now, limit, offset]);
    return res.rows.map((r) => ({ ...rowItem(r), score: null }));
  }
  async function* rows(): AsyncIterable<Row> {
    const page = 1000;
    for (let at = 0; ; at += page) {
      const res = await ctx.query<Row>(sql, [lo, hi ?? TOP, now, page, at]);
      yield* res.rows;
      if (res.rows.length < page) return;
    }
  }
  const out: SearchItem[] = [];
  let skipped = 0;
  for await (const r of rows()) {
    const item = rowItem(r);
    if (!test(item.value)) continue;
    if (skipped++ < offset) continue;
    out.push({ ...item, score: null });
    if (out.length === limit) break;
  }
  return out;
}
