/**
 * The searches of `PostgresMemoryStore` by a query: on pgvector's HNSW index, or exact (float32
 * blobs ranked in this process), and the SQL pieces the store shares with them.
 *
 * @module
 */
import { MemoryStoreError } from "../../errors/index.js";
import { BlobScorer } from "../../memory/blob-scorer.js";
import type { ValueTest } from "../../memory/filter.js";
import { tooMany } from "../../memory/in-memory-store.js";
import { prefixRange, toItem } from "../../memory/internal.js";
import { byNamespaceKey, TopK, takePage } from "../../memory/ranking.js";
import type { MemoryItem, SearchItem } from "../../memory/types.js";
import type { RowClient, VectorSql } from "./postgres-memory-schema.js";

const NAME = "PostgresMemoryStore";
/** Upper bound of every encoded namespace, for the empty prefix. */
export const TOP = "\u{10ffff}";

/** What a search needs of its store. */
export interface SearchContext {
  /** The quoted items table. */
  items: string;
  vec: VectorSql;
  efSearch: number;
  maxSearchItems: number;
  /** The store's clock at the search, ms. */
  now: number;
  connect(): Promise<RowClient & { release(error?: Error | boolean): void }>;
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
  /**
   * Run a statement and hand each row (an array of its columns) to `each` as it arrives,
   * keeping none; resolves with the count of rows (see `streamRows`).
   */
  stream(sql: string, params: unknown[], each: (row: unknown[]) => void): Promise<number>;
}

export interface Row {
  ns: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

export const COLS =
  "ns, key, value, created_at::float8 AS created_at, updated_at::float8 AS updated_at, expires_at::float8 AS expires_at";
export const LIVE = "(expires_at IS NULL OR expires_at > $NOW)";

/**
 * A query on the HNSW index: `offset + limit` items (4 times as many fetched with a filter,
 * more until the page is full), ties at equal distance in namespace and key order.
 */
export async function pgvectorSearch(
  ctx: SearchContext,
  prefix: string[],
  q: Float32Array,
  limit: number,
  offset: number,
  test: ValueTest | null,
): Promise<SearchItem[]> {
  // The index gives rows by distance only; ties are put in namespace and key order here, so
  // rows at the last distance fetched are used only once every row at it has been fetched.
  let window = test ? (offset + limit) * 4 : offset + limit + 1;
  for (;;) {
    const rows = await searchRows(ctx, prefix, q, window);
    const complete = rows.length < window;
    const cut = complete ? Number.POSITIVE_INFINITY : rows[rows.length - 1]!.distance;
    const sure = rows
      .filter((r) => r.distance < cut)
      .sort((a, b) => a.distance - b.distance || byNamespaceKey(a, b));
    const out = takePage(sure, rowItem, (r) => 1 - r.distance, test, offset, limit);
    if (out.length === limit || complete) return out;
    window *= 4;
  }
}

/**
 * The rows of a pgvector query (or with `explain`, its plan's lines): ordered by the HNSW
 * index, `hnsw.ef_search` and iterative scans set for its transaction, plus `settings`.
 */
export async function searchRows(
  ctx: SearchContext,
  prefix: string[],
  q: Float32Array,
  limit: number,
  settings: Record<string, string> = {},
  explain = false,
): Promise<(Row & { distance: number })[]> {
  const { lo, hi } = prefixRange(prefix);
  const { type, op } = ctx.vec;
  const sql = `${explain ? "EXPLAIN " : ""}SELECT ${COLS}, (embedding ${op} $1::${type})::float8 AS distance
FROM ${ctx.items}
WHERE embedding IS NOT NULL AND ns >= $2 AND ns < $3 AND ${LIVE.replace("$NOW", "$4")}
ORDER BY embedding ${op} $1::${type} LIMIT $5`;
  const client = await ctx.connect();
  try {
    await client.query("BEGIN");
    await client.query(
      `SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(ctx.efSearch, limit))}`,
    );
    if (ctx.vec.iterative) await client.query("SET LOCAL hnsw.iterative_scan = strict_order");
    for (const [name, value] of Object.entries(settings)) {
      if (!/^[a-z_][a-z0-9_.]*$/.test(name)) {
        throw new MemoryStoreError(`${NAME}: setting name ${JSON.stringify(name)} is not a word`);
      }
      await client.query("SELECT set_config($1, $2, true)", [name, value]);
    }
    const res = await client.query(sql, [toVectorText(q), lo, hi ?? TOP, ctx.now, limit]);
    await client.query("COMMIT");
    return res.rows as unknown as (Row & { distance: number })[];
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw wrap(e, "search");
  } finally {
    client.release();
  }
}

/**
 * Exact search: every indexed vector under the prefix, ranked by cosine similarity here in
 * one pass, keeping the best `offset + limit`; the winners' items are read after (with a
 * filter, the items come with the vectors, and only those that pass are kept).
 */
export async function exactSearch(
  ctx: SearchContext,
  prefix: string[],
  q: Float32Array,
  limit: number,
  offset: number,
  test: ValueTest | null,
): Promise<SearchItem[]> {
  const { lo, hi } = prefixRange(prefix);
  const top = new TopK<{ ns: string; key: string; score: number; item: MemoryItem | null }>(
    offset + limit,
  );
  const scorer = new BlobScorer(q);
  // The rows are scored as they arrive and dropped (see streamRows); an error of a row's item
  // or filter is thrown after the scan, as it was when the rows were all read first.
  let failed: { error: unknown } | null = null;
  const count = await ctx.stream(
    `SELECT ${test ? COLS : "ns, key"}, encode(embedding_f32, 'base64') AS e FROM ${ctx.items}
WHERE embedding_f32 IS NOT NULL AND ns >= $1 AND ns < $2 AND ${LIVE.replace("$NOW", "$3")} LIMIT $4`,
    [lo, hi ?? TOP, ctx.now, ctx.maxSearchItems + 1],
    (row) => {
      if (failed) return;
      const ns = row[0] as string;
      const key = row[1] as string;
      try {
        const score = scorer.base64(row[test ? 6 : 2] as string);
        if (!top.admits(score, ns, key)) return;
        const item = test ? rowItem(arrayRow(row)) : null;
        if (item && !test?.(item.value)) return;
        top.push({ ns, key, score, item });
      } catch (e) {
        failed = { error: e };
      }
    },
  );
  if (count > ctx.maxSearchItems) throw tooMany(ctx.maxSearchItems, prefix);
  if (failed) throw (failed as { error: unknown }).error;
  const best = top.sorted().slice(offset);
  if (!test && best.length > 0) {
    const rows = await ctx.query<Row>(
      `SELECT ${COLS} FROM ${ctx.items} WHERE (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [best.map((b) => b.ns), best.map((b) => b.key)],
    );
    const byId = new Map(rows.rows.map((r) => [`${r.ns}\u0000${r.key}`, rowItem(r)]));
    for (const b of best) b.item = byId.get(`${b.ns}\u0000${b.key}`) ?? null;
  }
  return takePage(
    best,
    (b) => b.item,
    (b) => b.score,
    null,
    0,
    limit,
  );
}

export function wrap(e: unknown, what: string): MemoryStoreError {
  if (e instanceof MemoryStoreError) return e;
  return new MemoryStoreError(
    `${NAME}: the ${what} failed: ${(e as Error)?.message ?? String(e)}`,
    { cause: e },
  );
}

/** A row of {@link COLS} read as an array (in that order). */
function arrayRow(r: unknown[]): Row {
  return {
    ns: r[0] as string,
    key: r[1] as string,
    value: r[2] as string,
    created_at: r[3] as number,
    updated_at: r[4] as number,
    expires_at: r[5] as number | null,
  };
}

export function rowItem(r: Row): MemoryItem {
  return toItem(r.ns, r.key, r.value, r.created_at, r.updated_at, r.expires_at);
}

export function toVectorText(v: Float32Array): string {
  return `[${Array.from(v).join(",")}]`;
}
