/**
 * Tests of the stores' exact searches against `InMemoryStore` (the oracle): the same items put
 * into both, the same searches, and the ties they must order alike (used by the PostgreSQL
 * and SQLite memory stores' tests).
 *
 * @module
 */
import { expect } from "vitest";
import { HashEmbeddings } from "./hash-embeddings.js";
import type { MemoryStore, SearchOptions } from "./types.js";

/** The index both stores use: 16-dimension hash embeddings of `text`. */
export const index16 = () => ({
  embeddings: new HashEmbeddings({ dimensions: 16 }),
  dimensions: 16,
  fields: ["text"],
});

/**
 * Put `n` items into each store (two words a text, many texts alike: exact ties, ordered by
 * namespace and key), and one that is not indexed.
 */
export async function putAlike(stores: MemoryStore[], n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const value = { text: `w${i % 23} v${i % 11}`, n: i, kind: i % 3 === 0 ? "a" : "b" };
    const ns = i % 5 === 4 ? ["doc"] : ["docs", `g${i % 4}`];
    for (const s of stores) await s.put(ns, `d${i}`, value);
  }
  for (const s of stores) await s.put(["docs", "g0"], "plain", { text: "w1 v1" }, { index: false });
}

/** Searches without a filter: prefixes (empty, of no items), offsets, limits. */
export const PLAIN_SEARCHES: [string[], SearchOptions][] = [
  [["docs"], { query: "w1 v1", limit: 10 }],
  [["docs"], { query: "w5", limit: 25, offset: 7 }],
  [["doc"], { query: "w5", limit: 25 }],
  [["docs", "g2"], { query: "w2 v3", limit: 12 }],
  [[], { query: "w3 v3", limit: 1000 }],
  [["nothing"], { query: "w1" }],
  [["docs"], { query: "w1", offset: 500 }],
];

/** Each search gives what the oracle gives (items and scores to the last bit). */
export async function expectSameSearches(
  store: MemoryStore,
  oracle: MemoryStore,
  searches: [string[], SearchOptions][],
): Promise<void> {
  for (const [p, options] of searches) {
    expect(await store.search(p, options)).toEqual(await oracle.search(p, options));
  }
}

/**
 * The ties of {@link putAlike}'s items (at least 209 of them): two texts alike the query (in
 * namespace order), then the first two of many at 0.5 (in key order; the limit cuts the tie).
 */
export async function expectTies(store: MemoryStore): Promise<void> {
  const ties = await store.search(["docs"], { query: "w1 v1", limit: 4 });
  expect(ties.map((i) => [i.namespace[1], i.key, (i.value as { text: string }).text])).toEqual([
    ["g0", "d208", "w1 v10"],
    ["g1", "d1", "w1 v1"],
    ["g0", "d100", "w8 v1"],
    ["g0", "d116", "w1 v6"],
  ]);
  expect(ties.map((i) => Math.round(i.score! * 1e5) / 1e5)).toEqual([1, 1, 0.5, 0.5]);
}
