/**
 * What every memory store shares: argument checks, the namespace encoding, filters, the text
 * to embed, vectors and scoring. Internal: the stores import it, users do not.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import { findNonJson, isPlainObject, type JsonObject } from "../json/index.js";
import { nodeCrypto } from "../lazy.js";
import { readPath } from "./filter.js";
import type {
  Embeddings,
  IndexConfig,
  ListOptions,
  MemoryItem,
  Namespace,
  PutOptions,
  SearchOptions,
} from "./types.js";

/** Most labels in a namespace. */
export const MAX_NAMESPACE_DEPTH = 16;
/** Most characters in one namespace label. */
export const MAX_LABEL_LENGTH = 256;
/** Most characters in a key. */
export const MAX_KEY_LENGTH = 1024;
/** Most bytes of an item's value as JSON text (UTF-8): 1 MiB. */
export const MAX_VALUE_BYTES = 1_048_576;
/** Most items one `list` or `search` returns. */
export const MAX_LIMIT = 1000;
/** Default `limit` of `list` and `search`. */
export const DEFAULT_LIMIT = 10;
/** Most dimensions of a vector in memory and SQLite. */
export const MAX_DIMENSIONS = 4096;
/** Most indexed items one exact (brute-force) search compares, in memory and SQLite, by default. */
export const DEFAULT_MAX_SEARCH_ITEMS = 200_000;
/** Separator after each label in the encoded namespace (not allowed in labels). */
const SEP = "\u001f";

/** Where an item is: for error messages. */
export function where(namespace: Namespace, key?: string): string {
  const ns = JSON.stringify(namespace);
  return key === undefined ? `namespace ${ns}` : `item ${JSON.stringify(key)} of namespace ${ns}`;
}

/** Check a namespace (`prefix: true` allows 0 labels) and return a plain copy. */
export function checkNamespace(namespace: unknown, prefix: boolean, op: string): string[] {
  if (!Array.isArray(namespace)) {
    throw new MemoryStoreError(
      `${op}: the namespace must be an array of strings such as ["users", "u-42"], got ${typeof namespace}`,
    );
  }
  const min = prefix ? 0 : 1;
  if (namespace.length < min || namespace.length > MAX_NAMESPACE_DEPTH) {
    throw new MemoryStoreError(
      `${op}: a namespace${prefix ? " prefix" : ""} has ${min} to ${MAX_NAMESPACE_DEPTH} labels, got ${namespace.length}`,
      { namespace: namespace.map(String) },
    );
  }
  for (let i = 0; i < namespace.length; i++) {
    const label: unknown = namespace[i];
    if (
      typeof label !== "string" ||
      label === "" ||
      label.length > MAX_LABEL_LENGTH ||
      label.includes("\u0000") ||
      label.includes(SEP)
    ) {
      throw new MemoryStoreError(
        `${op}: namespace label ${i} must be a non-empty string of at most ${MAX_LABEL_LENGTH} characters without U+0000 or U+001F, got ${typeof label === "string" ? JSON.stringify(label.slice(0, 40)) : typeof label}`,
        { namespace: namespace.map(String) },
      );
    }
  }
  return [...namespace];
}

/** Check a key. */
export function checkKey(key: unknown, namespace: string[], op: string): string {
  if (typeof key !== "string" || key === "" || key.length > MAX_KEY_LENGTH) {
    throw new MemoryStoreError(
      `${op}: the key must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${typeof key === "string" ? `${key.length} characters` : typeof key}`,
      { namespace },
    );
  }
  return key;
}

/** Check a value and return its JSON text. */
export function encodeValue(value: unknown, namespace: string[], key: string): string {
  if (!isPlainObject(value)) {
    throw new MemoryStoreError(
      `put: the value of ${where(namespace, key)} must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
      { namespace, key },
    );
  }
  const bad = findNonJson(value, "value");
  if (bad) {
    throw new MemoryStoreError(
      `put: the value of ${where(namespace, key)} is not JSON at ${bad.path}: ${bad.problem}`,
      { namespace, key },
    );
  }
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_VALUE_BYTES) {
    throw new MemoryStoreError(
      `put: the value of ${where(namespace, key)} is ${bytes} bytes as JSON, more than the limit of ${MAX_VALUE_BYTES}`,
      { namespace, key },
    );
  }
  return text;
}

/** Encoded namespace: each label followed by U+001F. Prefixes of namespaces are prefixes of encodings. */
export function encodeNamespace(namespace: readonly string[]): string {
  let out = "";
  for (const label of namespace) out += label + SEP;
  return out;
}

/** The namespace of an encoding. */
export function decodeNamespace(encoded: string): string[] {
  return encoded === "" ? [] : encoded.slice(0, -1).split(SEP);
}

/**
 * The range of encodings under a prefix: `lo <= ns < hi` (code-unit and byte order alike).
 * `hi` is `null` for the empty prefix (everything).
 */
export function prefixRange(prefix: readonly string[]): { lo: string; hi: string | null } {
  if (prefix.length === 0) return { lo: "", hi: null };
  const lo = encodeNamespace(prefix);
  return { lo, hi: `${lo.slice(0, -1)} ` };
}

/** The expiry time of a put, or `null`. */
export function expiryOf(
  options: PutOptions | undefined,
  now: number,
  namespace: string[],
  key: string,
): number | null {
  const ttl = options?.ttlMs;
  if (ttl === undefined || ttl === null) return null;
  if (typeof ttl !== "number" || !Number.isSafeInteger(ttl) || ttl < 1) {
    throw new MemoryStoreError(
      `put: ttlMs of ${where(namespace, key)} must be a positive whole number of ms or null, got ${String(ttl)}`,
      { namespace, key },
    );
  }
  return now + ttl;
}

/** Check `{ limit, offset }` and fill in the defaults. */
export function pageOf(
  options: ListOptions | undefined,
  op: string,
): { limit: number; offset: number } {
  const limit = options?.limit ?? DEFAULT_LIMIT;
  const offset = options?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new MemoryStoreError(
      `${op}: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${String(limit)}`,
    );
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new MemoryStoreError(`${op}: offset must be a whole number >= 0, got ${String(offset)}`);
  }
  return { limit, offset };
}

/** Check a search's query. */
export function queryOf(options: SearchOptions | undefined, indexed: boolean): string | null {
  const q = options?.query;
  if (q === undefined || q === null) return null;
  if (typeof q !== "string" || q === "") {
    throw new MemoryStoreError(
      `search: query must be a non-empty string, got ${typeof q === "string" ? '""' : typeof q}`,
    );
  }
  if (!indexed) {
    throw new MemoryStoreError(
      "search: a query needs a store with semantic search: give the store { index: { embeddings, dimensions } }",
    );
  }
  return q;
}

// ---- Semantic search ----------------------------------------------------------------------

/** A checked index config. */
export interface CheckedIndex {
  embeddings: Embeddings;
  dimensions: number;
  fields: readonly string[];
}

/** Check a store's `index` option, or `null` without one. */
export function checkIndex(
  index: IndexConfig | undefined,
  maxDimensions: number,
  store: string,
): CheckedIndex | null {
  if (index === undefined || index === null) return null;
  if (typeof index.embeddings?.embed !== "function") {
    throw new MemoryStoreError(`${store}: index.embeddings must have an embed(texts) method`);
  }
  const d = index.dimensions;
  if (!Number.isInteger(d) || d < 1 || d > maxDimensions) {
    throw new MemoryStoreError(
      `${store}: index.dimensions must be a whole number from 1 to ${maxDimensions}, got ${String(d)}`,
    );
  }
  const fields = checkFields(index.fields ?? ["$"], `${store}: index.fields`);
  return { embeddings: index.embeddings, dimensions: d, fields };
}

function checkFields(fields: unknown, what: string): readonly string[] {
  if (
    !Array.isArray(fields) ||
    fields.length === 0 ||
    fields.some((f) => typeof f !== "string" || f === "")
  ) {
    throw new MemoryStoreError(
      `${what} must be a non-empty list of field paths such as ["text"] or ["$"]`,
    );
  }
  return [...fields] as string[];
}

/**
 * The text a put embeds, or `null` when nothing is (no index, `index: false`, or none of the
 * fields is present). Strings are taken as they are, other values as JSON; fields are joined
 * with a newline, in the order given.
 */
export function textToEmbed(
  value: JsonObject,
  options: PutOptions | undefined,
  index: CheckedIndex | null,
  namespace: string[],
  key: string,
): string | null {
  const choice = options?.index;
  if (index === null) {
    if (choice !== undefined && choice !== false) {
      throw new MemoryStoreError(
        `put: ${where(namespace, key)} asks for index fields, but the store has no semantic search; give the store { index: { embeddings, dimensions } }`,
        { namespace, key },
      );
    }
    return null;
  }
  if (choice === false) return null;
  const fields =
    choice === undefined
      ? index.fields
      : checkFields(choice, `put: index of ${where(namespace, key)}`);
  const parts: string[] = [];
  for (const f of fields) {
    const v = readPath(value, f);
    if (v === undefined || v === null) continue;
    parts.push(typeof v === "string" ? v : JSON.stringify(v));
  }
  return parts.length === 0 ? null : parts.join("\n");
}

/** A short digest of an embedded text (to tell whether it changed). */
export function textHash(text: string): string {
  return nodeCrypto().createHash("sha256").update(text).digest("base64url");
}

/**
 * Embed texts and check the vectors: as many as texts, each `dimensions` finite numbers, not all 0.
 * Returns them normalized to length 1 (so a dot product is the cosine similarity).
 * @throws MemoryStoreError when the embedder fails or returns something else.
 */
export async function embedChecked(
  index: CheckedIndex,
  texts: string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  let raw: unknown;
  try {
    raw = await index.embeddings.embed(texts, signal ? { signal } : undefined);
  } catch (e) {
    throw new MemoryStoreError(
      `The embeddings failed for ${texts.length} text(s): ${(e as Error)?.message ?? String(e)}`,
      {
        cause: e,
      },
    );
  }
  if (!Array.isArray(raw) || raw.length !== texts.length) {
    throw new MemoryStoreError(
      `The embeddings returned ${Array.isArray(raw) ? raw.length : typeof raw} vector(s) for ${texts.length} text(s)`,
    );
  }
  return raw.map((v, i) => normalize(v, index.dimensions, i));
}

function normalize(v: unknown, dims: number, i: number): Float32Array {
  if (!Array.isArray(v) && !(v instanceof Float32Array) && !(v instanceof Float64Array)) {
    throw new MemoryStoreError(`The embeddings returned a ${typeof v} for text ${i}, not a vector`);
  }
  if (v.length !== dims) {
    throw new MemoryStoreError(
      `The embeddings returned a vector of ${v.length} dimensions for text ${i}; the store's index has ${dims}`,
    );
  }
  let sum = 0;
  for (let j = 0; j < dims; j++) {
    const x = v[j] as unknown;
    if (typeof x !== "number" || !Number.isFinite(x)) {
      throw new MemoryStoreError(
        `The embeddings returned a vector with a non-finite number at ${j} for text ${i}`,
      );
    }
    sum += x * x;
  }
  if (sum === 0) throw new MemoryStoreError(`The embeddings returned a zero vector for text ${i}`);
  const norm = Math.sqrt(sum);
  const out = new Float32Array(dims);
  for (let j = 0; j < dims; j++) out[j] = (v[j] as number) / norm;
  return out;
}

/** Dot product of two vectors of one length. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A vector as the bytes SQLite keeps (float32, little-endian). */
export function vectorToBlob(v: Float32Array): Uint8Array {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A vector from SQLite's bytes. */
export function blobToVector(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

/** An item built from stored parts. */
export function toItem(
  ns: string,
  key: string,
  valueJson: string,
  createdAt: number,
  updatedAt: number,
  expiresAt: number | null,
): MemoryItem {
  return {
    namespace: decodeNamespace(ns),
    key,
    value: JSON.parse(valueJson) as JsonObject,
    createdAt,
    updatedAt,
    expiresAt,
  };
}

/** The error of a closed store. */
export function closedStore(store: string): MemoryStoreError {
  return new MemoryStoreError(`The ${store} is closed`);
}

/** Check a store's `now` option and return the clock. */
export function clockOf(now: unknown, store: string): () => number {
  if (now === undefined) return Date.now;
  if (typeof now !== "function")
    throw new MemoryStoreError(`${store}: now must be a function returning ms`);
  return now as () => number;
}

/** Check a store's `maxSearchItems` option (default {@link DEFAULT_MAX_SEARCH_ITEMS}). */
export function maxSearchItemsOf(max: unknown, store: string): number {
  const m = max ?? DEFAULT_MAX_SEARCH_ITEMS;
  if (!Number.isInteger(m) || (m as number) < 1) {
    throw new MemoryStoreError(
      `${store}: maxSearchItems must be a positive whole number, got ${String(m)}`,
    );
  }
  return m as number;
}

/** Check a store's `tablePrefix` option (default `"memory_"`): letters, digits and `_`. */
export function tablePrefixOf(prefix: unknown, store: string): string {
  const p = prefix ?? "memory_";
  if (typeof p !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(p)) {
    throw new MemoryStoreError(
      `${store}: tablePrefix must be letters, digits and _ (not starting with a digit), at most 41 characters, got ${JSON.stringify(p)}`,
    );
  }
  return p;
}
