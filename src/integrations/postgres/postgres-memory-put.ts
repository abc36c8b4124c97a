/**
 * The puts of `PostgresMemoryStore`: checked one by one, written in groups (one `put`, or
 * consecutive puts of a `batch`) as one multi-row upsert over `unnest` arrays.
 *
 * @module
 */
import type { JsonObject } from "../../json/index.js";
import type { CheckedPut } from "../../memory/batch.js";
import {
  type CheckedIndex,
  checkKey,
  checkNamespace,
  embedChecked,
  encodeNamespace,
  encodeValue,
  expiryOf,
  textHash,
  textToEmbed,
  vectorToBlob,
} from "../../memory/internal.js";
import { keptTimes } from "../../memory/operations.js";
import type { Namespace, PutOptions } from "../../memory/types.js";
import type { VectorSql } from "./postgres-memory-schema.js";
import { toVectorText } from "./postgres-memory-search.js";

/** Most puts in one upsert. */
export const MAX_PUTS_PER_STATEMENT = 1000;
/** Most characters of values' JSON in one upsert (a larger single value goes alone). */
export const MAX_PUT_SIZE_PER_STATEMENT = 4 * 1_048_576;

/**
 * A checked put: the row it writes but its vector. `kind` is `"kept"` when it brings its own
 * `createdAt` (which then replaces the stored one), else `"now"`: one upsert has one kind.
 */
export interface PgPut extends CheckedPut {
  readonly kind: "kept" | "now";
  readonly ns: string;
  readonly key: string;
  readonly json: string;
  /** The given `createdAt`, else the clock's time of the put. */
  readonly createdAt: number;
  /** The given `updatedAt`, else the clock's time of the put. */
  readonly updatedAt: number;
  readonly expiresAt: number | null;
  /** The text to embed, or `null`. */
  readonly text: string | null;
}

/**
 * Check a put as `PostgresMemoryStore.put` does (reads the clock once).
 * @throws MemoryStoreError for a bad namespace, key, value, `ttlMs`, kept time or `index`.
 */
export function checkPut(
  namespace: Namespace,
  key: string,
  value: JsonObject,
  options: PutOptions | undefined,
  index: CheckedIndex | null,
  now: () => number,
): PgPut {
  const nsl = checkNamespace(namespace, false, "put");
  checkKey(key, nsl, "put");
  const json = encodeValue(value, nsl, key);
  const at = now();
  const expiresAt = expiryOf(options, at, nsl, key);
  const kept = keptTimes(options, nsl, key);
  const text = textToEmbed(value, options, index, nsl, key);
  const ns = encodeNamespace(nsl);
  return {
    id: `${ns}\u0000${key}`,
    kind: kept.createdAt === null ? "now" : "kept",
    size: json.length,
    ns,
    key,
    json,
    createdAt: kept.createdAt ?? at,
    updatedAt: kept.updatedAt ?? at,
    expiresAt,
    text,
  };
}

/** What {@link writePuts} needs of the store, once it is ready. */
export interface PutContext {
  items: string;
  index: CheckedIndex | null;
  mode: "pgvector" | "exact" | null;
  vec: VectorSql;
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * Write a group of puts (of one kind, each namespace and key once) in one upsert: a new row
 * takes the put's times; a replaced row keeps its `created_at` unless the put brings one or
 * the row had expired, and keeps its vector when the embedded text is the same (by hash), so
 * only new or changed texts are embedded (all in one call to the embedder).
 * @throws MemoryStoreError when the embedder or a query fails; nothing is written then.
 */
export async function writePuts(c: PutContext, group: readonly PgPut[]): Promise<void> {
  const col = c.mode === "exact" ? "embedding_f32" : "embedding";
  const rows = [...group].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)); // one lock order
  const hashes = rows.map((p) => (c.index && p.text !== null ? textHash(p.text) : null));
  const vectors: (string | Uint8Array | null)[] = rows.map(() => null);
  if (c.index) {
    const embed = await toEmbed(c, col, rows, hashes);
    if (embed.length > 0) {
      const got = await embedChecked(
        c.index,
        embed.map((k) => rows[k]?.text as string),
      );
      embed.forEach((k, j) => {
        const v = got[j] as Float32Array;
        vectors[k] = c.mode === "exact" ? vectorToBlob(v) : toVectorText(v);
      });
    }
  }
  const kept = (group[0] as PgPut).kind === "kept";
  // Per row, `excluded.created_at` is the put's clock time when it brings no createdAt, and a
  // row with a hash but no vector is one whose stored vector is kept.
  const set = c.index
    ? `, ${col} = CASE WHEN excluded.text_hash IS NOT NULL AND excluded.${col} IS NULL THEN t.${col} ELSE excluded.${col} END`
    : "";
  const columns: unknown[][] = [
    rows.map((p) => p.ns),
    rows.map((p) => p.key),
    rows.map((p) => p.json),
    rows.map((p) => p.createdAt),
    rows.map((p) => p.updatedAt),
    rows.map((p) => p.expiresAt),
    hashes,
  ];
  const types = ["text", "text", "text", "bigint", "bigint", "bigint", "text"];
  if (c.index) {
    columns.push(vectors);
    types.push(c.mode === "exact" ? "bytea" : "text");
  }
  const vectorType = c.mode === "exact" ? "" : `::${c.vec.type}`;
  await c.query(
    `INSERT INTO ${c.items} AS t (ns, key, value, created_at, updated_at, expires_at, text_hash${c.index ? `, ${col}` : ""})
${rowSource(types, rows.length, vectorType)}
ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value,
  created_at = CASE WHEN $1::boolean OR (t.expires_at IS NOT NULL AND t.expires_at <= excluded.created_at)
    THEN excluded.created_at ELSE t.created_at END,
  updated_at = excluded.updated_at, expires_at = excluded.expires_at, text_hash = excluded.text_hash${set}`,
    [kept, ...(rows.length === 1 ? columns.map((xs) => xs[0]) : columns)],
  );
}

/**
 * The rows of an upsert from parameters `$2`... of `types` (the 8th, a vector, then cast with
 * `vectorType`): one row of single values (as cheap as a lone `put` was), or `unnest` of one
 * array a column.
 */
function rowSource(types: readonly string[], rows: number, vectorType: string): string {
  const cast = (i: number) => (i === 7 ? vectorType : "");
  if (rows === 1) return `VALUES (${types.map((t, i) => `$${i + 2}::${t}${cast(i)}`).join(", ")})`;
  const names = ["ns", "key", "value", "c", "u", "e", "h", "v"].slice(0, types.length);
  return `SELECT ${names.map((n, i) => `u.${n}${cast(i)}`).join(", ")}
FROM unnest(${types.map((t, i) => `$${i + 2}::${t}[]`).join(", ")}) AS u(${names.join(", ")})`;
}

/**
 * The rows (indexes into `rows`) whose text must be embedded: those with a text whose hash is
 * not the stored row's (with a vector).
 */
async function toEmbed(
  c: PutContext,
  col: string,
  rows: readonly PgPut[],
  hashes: readonly (string | null)[],
): Promise<number[]> {
  const withText = rows.flatMap((_p, k) => (hashes[k] === null ? [] : [k]));
  if (withText.length === 0) return [];
  const one = withText.length === 1;
  const old = await c.query<{ ns: string; key: string; text_hash: string | null }>(
    `SELECT t.ns, t.key, t.text_hash FROM ${c.items} t${
      one
        ? " WHERE t.ns = $1 AND t.key = $2"
        : " JOIN unnest($1::text[], $2::text[]) AS u(ns, key) ON t.ns = u.ns AND t.key = u.key WHERE"
    }${one ? " AND" : ""} t.${col} IS NOT NULL`,
    one
      ? [rows[withText[0] as number]?.ns, rows[withText[0] as number]?.key]
      : [withText.map((k) => rows[k]?.ns), withText.map((k) => rows[k]?.key)],
  );
  const stored = new Map(old.rows.map((r) => [`${r.ns}\u0000${r.key}`, r.text_hash]));
  return withText.filter((k) => stored.get((rows[k] as PgPut).id) !== hashes[k]);
}
