/**
 * `HashEmbeddings`: a deterministic, local {@link Embeddings} for tests and examples.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import type { Embeddings } from "./types.js";

/** Options of {@link HashEmbeddings}. */
export interface HashEmbeddingsOptions {
  /** Length of the vectors; default 64. */
  dimensions?: number;
}

/** FNV-1a, 32 bits. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A deterministic embedder with no model: each lower-cased word (letters and digits) adds 1 or
 * -1 to one dimension chosen by its hash (FNV-1a). Texts sharing words are close, texts sharing
 * none are near orthogonal: enough to test semantic search exactly, not to understand meaning.
 * A text without words gets the unit vector of dimension 0. It records every call in `calls`.
 *
 * @example
 * ```ts
 * import { HashEmbeddings } from "nodestep/testing";
 * const embeddings = new HashEmbeddings({ dimensions: 32 });
 * const store = new InMemoryStore({ index: { embeddings, dimensions: 32, fields: ["text"] } });
 * ```
 */
export class HashEmbeddings implements Embeddings {
  /** Length of the vectors. */
  readonly dimensions: number;
  /** The texts of every `embed` call, in order. */
  readonly calls: string[][] = [];

  /** @throws MemoryStoreError when `dimensions` is not a whole number from 1 to 4,096. */
  constructor(options: HashEmbeddingsOptions = {}) {
    const d = options.dimensions ?? 64;
    if (!Number.isInteger(d) || d < 1 || d > 4096) {
      throw new MemoryStoreError(
        `HashEmbeddings: dimensions must be a whole number from 1 to 4096, got ${String(d)}`,
      );
    }
    this.dimensions = d;
  }

  /** The vector of one text. */
  vector(text: string): number[] {
    const v = new Array<number>(this.dimensions).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const w of words) {
      const h = fnv1a(w);
      v[h % this.dimensions]! += h & 0x80000000 ? -1 : 1;
    }
    if (!v.some((x) => x !== 0)) v[0] = 1;
    return v;
  }

  async embed(texts: string[]): Promise<number[][]> {
    this.calls.push([...texts]);
    return texts.map((t) => this.vector(t));
  }
}
