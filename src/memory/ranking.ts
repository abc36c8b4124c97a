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
 * Order of two strings as SQLite's and PostgreSQL's `COLLATE "C"` compare their UTF-8 bytes:
 * code points, which differs from JavaScript's `<` (UTF-16 code units) only where a character
 * above U+FFFF (a surrogate pair) meets one from U+E000 to U+FFFF.
 */
export function byUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (U+D800 to U+DFFF, code points above U+FFFF) after U+E000 to U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** {@link byScore} with namespaces and keys in UTF-8 byte order ({@link byUtf8}), as SQLite orders them. */
export function byScoreUtf8(a: Ranked, b: Ranked): number {
  return b.score - a.score || byUtf8(a.ns, b.ns) || byUtf8(a.key, b.key);
}

/**
 * The best `k` candidates seen so far (by {@link byScore}, or the order given), in a binary heap whose root is the
 * worst kept: `O(log k)` a candidate that enters, `O(1)` one that does not.
 */
export class TopK<T extends Ranked> {
  readonly #k: number;
  readonly #heap: T[] = [];
  readonly #order: (a: Ranked, b: Ranked) => number;

  /**
   * @param k - how many to keep, 1 or more.
   * @param order - the result order (negative: `a` first); default {@link byScore}.
   */
  constructor(k: number, order: (a: Ranked, b: Ranked) => number = byScore) {
    this.#k = k;
    this.#order = order;
  }

  /** How many are kept. */
  get size(): number {
    return this.#heap.length;
  }

  /** Whether a candidate with this score, namespace and key would be kept. */
  admits(score: number, ns: string, key: string): boolean {
    if (this.#heap.length < this.#k) return true;
    return this.#order({ ns, key, score }, this.#heap[0]!) < 0;
  }

  /** Offer a candidate; kept when it is among the best `k`. */
  push(c: T): void {
    const h = this.#heap;
    if (h.length < this.#k) {
      h.push(c);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.#order(h[p]!, h[i]!) >= 0) break;
        [h[p], h[i]] = [h[i]!, h[p]!];
        i = p;
      }
      return;
    }
    if (this.#order(c, h[0]!) >= 0) return;
    h[0] = c;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && this.#order(h[l]!, h[worst]!) > 0) worst = l;
      if (r < h.length && this.#order(h[r]!, h[worst]!) > 0) worst = r;
      if (worst === i) return;
      [h[worst], h[i]] = [h[i]!, h[worst]!];
      i = worst;
    }
  }

  /** The kept candidates, best first. */
  sorted(): T[] {
    return [...this.#heap].sort(this.#order);
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
