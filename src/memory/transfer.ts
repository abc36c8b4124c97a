/**
 * Export and import of a namespace as JSON lines, for backups, moves between stores and
 * fixtures.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import { isPlainObject, type JsonObject } from "../json/index.js";
import { MAX_LIMIT } from "./internal.js";
import type { MemoryItem, MemoryStore, Namespace, PutOptions } from "./types.js";

/**
 * Every live item under a prefix as JSON lines (no newline at the end of each), in namespace
 * then key order: `{"namespace":[...],"key":"...","value":{...},"createdAt":1,"updatedAt":2,"expiresAt":null}`.
 * Vectors are not exported: an import embeds again.
 * @throws MemoryStoreError as the store's `list` does.
 */
export async function* exportNamespace(
  store: MemoryStore,
  namespacePrefix: Namespace,
): AsyncGenerator<string> {
  for (let offset = 0; ; offset += MAX_LIMIT) {
    const page = await store.list(namespacePrefix, { limit: MAX_LIMIT, offset });
    for (const item of page) yield JSON.stringify(item);
    if (page.length < MAX_LIMIT) return;
  }
}

/** Options of {@link importNamespace}. */
export interface ImportOptions {
  /** The clock for the TTLs left, in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

function parseLine(line: string, n: number): MemoryItem {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    throw new MemoryStoreError(`import: line ${n} is not JSON: ${(e as Error).message}`);
  }
  const o = v as Partial<MemoryItem>;
  if (
    !isPlainObject(v) ||
    !Array.isArray(o.namespace) ||
    typeof o.key !== "string" ||
    !isPlainObject(o.value) ||
    !(o.expiresAt === null || o.expiresAt === undefined || typeof o.expiresAt === "number") ||
    !(o.createdAt === undefined || typeof o.createdAt === "number") ||
    !(o.updatedAt === undefined || typeof o.updatedAt === "number")
  ) {
    throw new MemoryStoreError(
      `import: line ${n} is not an exported item { namespace, key, value, createdAt, updatedAt, expiresAt }`,
    );
  }
  return o as MemoryItem;
}

/**
 * Put the items of JSON lines (as {@link exportNamespace} writes them) into a store: each with
 * its namespace, key and value, and the time it had left to live (an item already expired is
 * skipped) and its `createdAt` and `updatedAt` (put with those options; a line without them
 * gets the import's time). Empty lines are skipped. Items are put one by one, so a failure
 * leaves the lines before it imported.
 * @returns how many items were put.
 * @throws MemoryStoreError naming the line for a line that is not an exported item, and as the
 *   store's `put` does.
 */
export async function importNamespace(
  store: MemoryStore,
  lines: Iterable<string> | AsyncIterable<string>,
  options: ImportOptions = {},
): Promise<number> {
  const now = options.now ?? Date.now;
  let n = 0;
  let count = 0;
  for await (const raw of lines) {
    n++;
    const line = raw.trim();
    if (line === "") continue;
    const item = parseLine(line, n);
    let ttlMs: number | null = null;
    if (typeof item.expiresAt === "number") {
      ttlMs = item.expiresAt - now();
      if (ttlMs <= 0) continue;
    }
    try {
      const options: PutOptions = { ttlMs };
      if (item.createdAt !== undefined) options.createdAt = item.createdAt;
      if (item.updatedAt !== undefined) options.updatedAt = item.updatedAt;
      await store.put(item.namespace, item.key, item.value as JsonObject, options);
    } catch (e) {
      if (e instanceof MemoryStoreError)
        throw new MemoryStoreError(`import: line ${n}: ${e.message}`, { cause: e });
      throw e;
    }
    count++;
  }
  return count;
}
