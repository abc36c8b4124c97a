/**
 * The exact search of `SqliteMemoryStore` without a filter: the vectors under a prefix read in
 * chunks of about 1 MiB (one row a chunk: its namespaces and keys as JSON arrays and its
 * vectors joined in one blob) and scored in this process. Scoring inside SQLite
 * (`nodestep_memory_score`) called JavaScript once a vector, and better-sqlite3 copies every
 * blob argument into a new `Buffer`: 2.7 µs a call, most of a search.
 *
 * @module
 */
import type Database from "better-sqlite3";
import { tooMany } from "../../memory/in-memory-store.js";
import { byScoreUtf8, TopK } from "../../memory/ranking.js";
import { LIVE } from "./sqlite-memory-sql.js";

/** Bytes of vectors a chunk holds (at least one vector). */
const CHUNK_BYTES = 1 << 20;

/** A scored vector: its encoded namespace and key. */
export interface Scored {
  ns: string;
  key: string;
  score: number;
}

interface Chunk {
  n: number;
  nss: string | null;
  keys: string | null;
  blob: Buffer | null;
  bytes: number | null;
}

/**
 * The chunk statement on `<p>vectors`: the next `@chunk` live vectors after `(@ns, @key)` in
 * primary-key order, below namespace `@hi`. `group_concat` joins the blobs' bytes as they are
 * (in a UTF-8 database; see {@link chunkedSearchWorks}).
 */
export function prepareChunks(db: Database.Database, p: string): Database.Statement {
  return db.prepare(`SELECT count(*) AS n, json_group_array(ns) AS nss, json_group_array(key) AS keys,
  CAST(group_concat(embedding, '') AS BLOB) AS blob, sum(length(embedding)) AS bytes
FROM (SELECT ns, key, embedding FROM ${p}vectors
  WHERE (ns, key) > (@ns, @key) AND ns < @hi AND ${LIVE} ORDER BY ns, key LIMIT @chunk)`);
}

/**
 * Whether chunks can be read on this database: `group_concat` copies blob bytes unchanged in a
 * UTF-8 database only (in UTF-16 it would read them as text).
 */
export function chunkedSearchWorks(db: Database.Database): boolean {
  return db.pragma("encoding", { simple: true }) === "UTF-8";
}

/**
 * The best `k` vectors under `[lo, hi)` for `q` in result order (score, then namespace and key
 * in SQLite's byte order), in one read transaction; `null` when a vector is not of `q`'s
 * dimensions (the caller scores in SQL then, as before).
 * `chunk` is the vectors a chunk reads (default: about 1 MiB of them).
 * @throws MemoryStoreError (`tooMany`) past `max` vectors.
 */
export function chunkedSearch(
  db: Database.Database,
  chunks: Database.Statement,
  q: Float32Array,
  range: { lo: string; hi: string; now: number },
  k: number,
  max: number,
  prefix: string[],
  chunk = Math.max(1, Math.floor(CHUNK_BYTES / (q.length * 4))),
): Scored[] | null {
  const dims = q.length;
  return db.transaction(() => {
    const top = new TopK<Scored>(k, byScoreUtf8);
    // Keys are never empty: (lo, "") is before every key of namespace lo and after every
    // namespace below it.
    let ns = range.lo;
    let key = "";
    let count = 0;
    for (;;) {
      const c = chunks.get({ ns, key, hi: range.hi, now: range.now, chunk }) as Chunk;
      if (c.n === 0) break;
      count += c.n;
      if (count > max) throw tooMany(max, prefix);
      const blob = c.blob as Buffer;
      if (c.bytes !== c.n * dims * 4 || blob.byteLength !== c.bytes) return null;
      const nss = JSON.parse(c.nss as string) as string[];
      const keys = JSON.parse(c.keys as string) as string[];
      // better-sqlite3 gives a blob its own buffer; copied when it is not 4-byte aligned.
      const all =
        blob.byteOffset % 4 === 0
          ? new Float32Array(blob.buffer, blob.byteOffset, c.n * dims)
          : new Float32Array(new Uint8Array(blob).buffer);
      for (let i = 0, at = 0; i < c.n; i++, at += dims) {
        // dot(q, vector i), summed in the same order (so to the same bits).
        let score = 0;
        for (let j = 0; j < dims; j++) score += q[j]! * all[at + j]!;
        if (top.admits(score, nss[i]!, keys[i]!)) top.push({ ns: nss[i]!, key: keys[i]!, score });
      }
      if (c.n < chunk) break;
      ns = nss[c.n - 1]!;
      key = keys[c.n - 1]!;
    }
    return top.sorted();
  })();
}
