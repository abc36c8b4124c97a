/**
 * Ranking of a query's results, shared by every memory store: the result order, a bounded
 * top-k heap for exact (brute-force) search, and the filter / offset / limit pass over ranked
 * candidates. Internal: the stores import it, users do not.
 *
 * @module
 */
import type { ValueTest } from "./filter.js";
import type { MemoryItem, SearchItem } from "./types.js";

/** A scored candidate: its encoded namespace, key and cosine similarity. */
export interface Ranked {
  ns: string;
  key: string;
  score: number;
}

/** Order of `list`: namespace, then key (code units). */
export function byNamespaceKey(
  a: { ns: string; key: string },
  b: { ns: string; key: string },
): number {
  if (a.ns !== b.ns) return a.ns < b.ns ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Order of a query's results: score, highest first, then namespace and key. */
export function byScore(a: Ranked, b: Ranked): number {
  return b.score - a.score || byNamespaceKey(a, b);
}

/**
 * The best `k` candidates seen so far (by {@link byScore}), in a binary heap whose root is the
 * worst kept: `O(log k)` a candidate that enters, `O(1)` one that does not.
 */
export class TopK<T extends Ranked> {
  readonly #k: number;
  readonly #heap: T[] = [];

  /** @param k - how many to keep, 1 or more. */
  constructor(k: number) {
    this.#k = k;
  }

  /** How many are kept. */
  get size(): number {
    return this.#heap.length;
  }

  /** Whether a candidate with this score, namespace and key would be kept. */
  admits(score: number, ns: string, key: string): boolean {
    if (this.#heap.length < this.#k) return true;
    return byScore({ ns, key, score }, this.#heap[0]!) < 0;
  }

  /** Offer a candidate; kept when it is among the best `k`. */
  push(c: T): void {
    const h = this.#heap;
    if (h.length < this.#k) {
      h.push(c);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (byScore(h[p]!, h[i]!) >= 0) break;
        [h[p], h[i]] = [h[i]!, h[p]!];
        i = p;
      }
      return;
    }
    if (byScore(c, h[0]!) >= 0) return;
    h[0] = c;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && byScore(h[l]!, h[worst]!) > 0) worst = l;
      if (r < h.length && byScore(h[r]!, h[worst]!) > 0) worst = r;
      if (worst === i) return;
      [h[worst], h[i]] = [h[i]!, h[worst]!];
      i = worst;
    }
  }

  /** The kept candidates, best first. */
  sorted(): T[] {
    return [...this.#heap].sort(byScore);
  }
}

/**
 * One page of results: walks `candidates` in result order, keeps those whose item passes
 * `test`, skips `offset` of them and returns at most `limit`. `item` reads a candidate's item
 * (`null` when it is gone, as an item deleted since it was ranked).
 */
export function takePage<C>(
  candidates: Iterable<C>,
  item: (c: C) => MemoryItem | null,
  score: (c: C) => number | null,
  test: ValueTest | null,
  offset: number,
  limit: number,
): SearchItem[] {
  const out: SearchItem[] = [];
  let skipped = 0;
  for (const c of candidates) {
    const it = item(c);
    if (it === null || (test && !test(it.value))) continue;
    if (skipped++ < offset) continue;
    out.push({ ...it, score: score(c) });
    if (out.length === limit) break;
  }
  return out;
}
