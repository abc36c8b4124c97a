import { describe, expect, it } from "vitest";
import { BlobScorer } from "./blob-scorer.js";

// Values exact in float32, so that every score is an exact number.
const q = new Float32Array([0.5, 0.25, -1, 2]);
const v = new Float32Array([2, 4, 0.5, 0.125]); // 1 + 1 - 0.5 + 0.25
const bytesOf = (x: Float32Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

/** PostgreSQL's `encode(blob, 'base64')`: a newline after each 76 characters. */
function pgBase64(b: Uint8Array): string {
  return (
    Buffer.from(b)
      .toString("base64")
      .match(/.{1,76}/g) ?? []
  ).join("\n");
}

describe("BlobScorer", () => {
  it("scores a blob's bytes in place when aligned, and copied when not (the same score)", () => {
    const s = new BlobScorer(q);
    expect(s.bytes(bytesOf(v))).toBe(1.75);
    // The blob at byte 1 of a larger buffer: not 4-byte aligned.
    const shifted = new Uint8Array(17);
    shifted.set(bytesOf(v), 1);
    const unaligned = shifted.subarray(1);
    expect(unaligned.byteOffset).toBe(1);
    expect(s.bytes(unaligned)).toBe(1.75);
    // The scratch copy does not leak into the next score.
    expect(s.bytes(bytesOf(new Float32Array([0, 0, 0, 1])))).toBe(2);
    expect(s.bytes(unaligned)).toBe(1.75);
  });

  it("scores base64 text as PostgreSQL writes it, newlines and all", () => {
    const s = new BlobScorer(q);
    expect(s.base64(pgBase64(bytesOf(v)))).toBe(1.75);
    // 64 dimensions: 344 characters, so newlines inside the text.
    const q64 = new Float32Array(64).fill(0.125);
    const v64 = new Float32Array(64).map((_, i) => (i % 2 === 0 ? 1 : -0.5));
    const text = pgBase64(bytesOf(v64));
    expect(text.split("\n").map((l) => l.length)).toEqual([76, 76, 76, 76, 40]);
    expect(new BlobScorer(q64).base64(text)).toBe(32 * 0.125 - 32 * 0.0625);
  });

  it("scores a blob of other dimensions as a copy of it is scored: shorter is NaN, longer reads the first, not whole floats throw", () => {
    const s = new BlobScorer(q);
    const short = bytesOf(new Float32Array([2, 4, 0.5]));
    const long = bytesOf(new Float32Array([2, 4, 0.5, 0.125, 9, 9]));
    const longer = bytesOf(new Float32Array(64).fill(1));
    expect(s.bytes(short)).toBeNaN();
    expect(s.base64(pgBase64(short))).toBeNaN();
    expect(s.bytes(long)).toBe(1.75);
    expect(s.base64(pgBase64(long))).toBe(1.75);
    expect(s.base64(pgBase64(longer))).toBe(1.75);
    // One byte more than a vector: in the scratch's spare bytes, still refused as a vector.
    const plusOne = Buffer.concat([bytesOf(v), Buffer.from([7])]);
    const message = "byte length of Float32Array should be a multiple of 4";
    expect(() => s.base64(pgBase64(plusOne))).toThrow(new RangeError(message));
    expect(() => s.bytes(plusOne)).toThrow(new RangeError(message));
    expect(() => s.base64(pgBase64(Buffer.from([1, 2, 3])))).toThrow(new RangeError(message));
    // And the next blob of the right size is scored right.
    expect(s.base64(pgBase64(bytesOf(v)))).toBe(1.75);
  });
});
