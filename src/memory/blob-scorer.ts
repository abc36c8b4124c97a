/**
 * Scoring float32 blobs (the stores' vectors, 4 bytes a dimension, little-endian) against one
 * query without allocating per blob: an exact search compares every vector under a prefix, and
 * a fresh `Float32Array` for each (with its own `ArrayBuffer`) cost more than the dot products.
 * Internal: the stores import it, users do not.
 *
 * @module
 */
import { blobToVector, dot } from "./internal.js";

/** The cosine similarities of one query (normalized) to blobs of its dimensions. */
export class BlobScorer {
  readonly #q: Float32Array;
  /** Scratch vector of the query's dimensions, and its bytes. */
  readonly #v: Float32Array;
  readonly #bytes: Buffer;
  /** The scratch bytes and 4 more: text decoding to more bytes than a vector fills them all. */
  readonly #room: Buffer;

  /** @param q - the query vector (normalized to length 1). */
  constructor(q: Float32Array) {
    this.#q = q;
    const room = new ArrayBuffer(q.byteLength + 4);
    this.#v = new Float32Array(room, 0, q.length);
    this.#bytes = Buffer.from(room, 0, q.byteLength);
    this.#room = Buffer.from(room);
  }

  /**
   * The score of a blob's bytes: read in place when they are 4-byte aligned, else copied to
   * the scratch vector. A blob of other dimensions is scored as {@link dot} scores it.
   */
  bytes(b: Uint8Array): number {
    if (b.byteLength !== this.#v.byteLength) return dot(this.#q, blobToVector(b));
    if (b.byteOffset % 4 === 0)
      return dot(this.#q, new Float32Array(b.buffer, b.byteOffset, this.#v.length));
    this.#bytes.set(b);
    return dot(this.#q, this.#v);
  }

  /**
   * The score of a blob given as base64 text (PostgreSQL's `encode(blob, 'base64')`, a newline
   * after each 76 characters), decoded into the scratch vector. Text of a blob of other
   * dimensions is decoded as `Buffer.from(text, "base64")` decodes it.
   */
  base64(text: string): number {
    if (this.#room.write(text, 0, "base64") !== this.#bytes.byteLength) {
      return dot(this.#q, blobToVector(Buffer.from(text, "base64")));
    }
    return dot(this.#q, this.#v);
  }
}
