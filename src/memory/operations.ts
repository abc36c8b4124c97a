/**
 * What every memory store shares beyond items: `listNamespaces` (checks and paging) and the
 * kept times of an import's put (`batch` is in `batch.ts`). Internal: the stores import it, users do not.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import { checkNamespace, decodeNamespace, encodeNamespace, MAX_LIMIT, where } from "./internal.js";
import type { ListNamespacesOptions, PutOptions } from "./types.js";

/** Default `limit` of `listNamespaces` (LangGraph's). */
export const DEFAULT_NAMESPACES_LIMIT = 100;

/** Checked options of `listNamespaces`. */
export interface NamespacesQuery {
  prefix: string[];
  suffix: string[];
  maxDepth: number | null;
  limit: number;
  offset: number;
}

/** Check the options of `listNamespaces`. */
export function namespacesQuery(options: ListNamespacesOptions | undefined): NamespacesQuery {
  const op = "listNamespaces";
  const prefix = checkNamespace(options?.prefix ?? [], true, `${op} prefix`);
  const suffix = checkNamespace(options?.suffix ?? [], true, `${op} suffix`);
  const maxDepth = options?.maxDepth ?? null;
  if (maxDepth !== null && (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 16)) {
    throw new MemoryStoreError(
      `${op}: maxDepth must be a whole number from 1 to 16, got ${String(maxDepth)}`,
    );
  }
  const limit = options?.limit ?? DEFAULT_NAMESPACES_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new MemoryStoreError(
      `${op}: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${String(limit)}`,
    );
  }
  const offset = options?.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new MemoryStoreError(`${op}: offset must be a whole number >= 0, got ${String(offset)}`);
  }
  return { prefix, suffix, maxDepth, limit, offset };
}

/**
 * One page of `listNamespaces` from the encoded namespaces under the query's prefix that hold
 * live items (each once, any order): suffix kept, cut to `maxDepth`, repeats dropped, in
 * namespace order.
 */
export function namespacesPage(encoded: Iterable<string>, q: NamespacesQuery): string[][] {
  const suffix = q.suffix.length === 0 ? "" : encodeNamespace(q.suffix);
  const seen = new Set<string>();
  for (const ns of encoded) {
    if (suffix !== "" && !(ns === suffix || ns.endsWith(`\u001f${suffix}`))) continue;
    seen.add(q.maxDepth === null ? ns : cut(ns, q.maxDepth));
  }
  return [...seen]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(q.offset, q.offset + q.limit)
    .map(decodeNamespace);
}

/** An encoded namespace cut to its first `depth` labels. */
function cut(ns: string, depth: number): string {
  let at = -1;
  for (let i = 0; i < depth; i++) {
    at = ns.indexOf("\u001f", at + 1);
    if (at === -1) return ns;
  }
  return ns.slice(0, at + 1);
}

/**
 * The times a put keeps (`createdAt`, `updatedAt` of its options, as an import gives them), or
 * `null` for each left out.
 * @throws MemoryStoreError for a time that is not a whole number >= 0, or `updatedAt` before `createdAt`.
 */
export function keptTimes(
  options: PutOptions | undefined,
  namespace: string[],
  key: string,
): { createdAt: number | null; updatedAt: number | null } {
  const createdAt = options?.createdAt ?? null;
  const updatedAt = options?.updatedAt ?? null;
  for (const [name, t] of [
    ["createdAt", createdAt],
    ["updatedAt", updatedAt],
  ] as const) {
    if (t !== null && (typeof t !== "number" || !Number.isSafeInteger(t) || t < 0)) {
      throw new MemoryStoreError(
        `put: ${name} of ${where(namespace, key)} must be a whole number of ms since the epoch, got ${String(t)}`,
        { namespace, key },
      );
    }
  }
  if (createdAt !== null && updatedAt !== null && updatedAt < createdAt) {
    throw new MemoryStoreError(
      `put: updatedAt (${updatedAt}) of ${where(namespace, key)} is before its createdAt (${createdAt})`,
      { namespace, key },
    );
  }
  return { createdAt, updatedAt };
}
