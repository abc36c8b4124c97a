/**
 * `batch` for every memory store: the operations one after another, with consecutive puts
 * optionally written together by a store that can (PostgreSQL: one multi-row upsert), as if
 * they had been put one by one. Internal: the stores import it, users do not.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type {
  MemoryOperation,
  MemoryOperationResult,
  MemoryStore,
  Namespace,
  PutOptions,
} from "./types.js";

/** A put that its store has checked, ready to be written with others. */
export interface CheckedPut {
  /** Namespace and key as one string: two puts with the same `id` never share a write. */
  readonly id: string;
  /** Puts of different kinds never share a write (a store's own split, such as kept times). */
  readonly kind: string;
  /** Its size as the store counts it (such as the length of the value's JSON), for {@link PutGroups.maxSize}. */
  readonly size: number;
}

/**
 * How a store writes consecutive puts of a batch together. A group holds puts of one `kind`,
 * each `id` once, at most `maxPuts` of them and of `maxSize` together (a single larger put is a
 * group alone).
 */
export interface PutGroups<P extends CheckedPut> {
  /**
   * Check a put exactly as the store's `put` does before it writes (the same errors, the same
   * reads of the clock), writing nothing.
   * @throws MemoryStoreError as `put` does.
   */
  check(namespace: Namespace, key: string, value: JsonObject, options?: PutOptions): P;
  /**
   * Write a group all or nothing, each put as `put` would write it one after another (a group
   * of one is exactly `put`).
   * @throws whatever `put` throws; nothing of the group is written then.
   */
  write(group: readonly P[]): Promise<void>;
  /** Most puts in a group. */
  readonly maxPuts: number;
  /** Most size ({@link CheckedPut.size}) of a group's puts together. */
  readonly maxSize: number;
}

/**
 * `batch`: the operations one after another on `store`. With `puts`, the consecutive puts
 * between two other operations are checked as they come and written in groups (see
 * {@link PutGroups}); a group is written before the next operation runs, so a get, list or
 * search after a put sees it. When a group of several puts fails, nothing of it was written
 * and its puts run again one by one through `store.put` (so the first that fails is the one
 * named, the ones before it are done, as without groups; the clock is read again for them).
 * A put that fails its check ends its group: the group is written, then the check's error is
 * thrown (or the group's, when its write fails first).
 * @throws MemoryStoreError `batch: operation <i> (<op>): <message>` for the first that fails,
 *   or for an operation that is not one.
 */
export async function runBatch<P extends CheckedPut>(
  store: MemoryStore,
  operations: readonly MemoryOperation[],
  puts?: PutGroups<P>,
): Promise<MemoryOperationResult[]> {
  if (!Array.isArray(operations)) {
    throw new MemoryStoreError(
      `batch: operations must be an array of { op, ... }, got ${typeof operations}`,
    );
  }
  const out: MemoryOperationResult[] = [];
  let i = 0;
  while (i < operations.length) {
    const o = operations[i] as MemoryOperation;
    if (puts === undefined || o?.op !== "put") {
      out.push(await named(i, o, () => runOne(store, o)));
      i++;
      continue;
    }
    i = await runPuts(store, operations, i, puts, out);
  }
  return out;
}

/**
 * The puts from `operations[start]` on, up to the next operation that is not a put, in groups.
 * Returns the index of the operation after them.
 */
async function runPuts<P extends CheckedPut>(
  store: MemoryStore,
  operations: readonly MemoryOperation[],
  start: number,
  puts: PutGroups<P>,
  out: MemoryOperationResult[],
): Promise<number> {
  let group: P[] = [];
  let first = start;
  let ids = new Set<string>();
  let size = 0;
  const flush = async () => {
    if (group.length > 0) await writeGroup(store, operations, first, group, puts);
    for (let k = 0; k < group.length; k++) out.push(undefined);
  };
  let i = start;
  for (; i < operations.length; i++) {
    const o = operations[i] as MemoryOperation;
    if (o?.op !== "put") break;
    let p: P;
    try {
      p = puts.check(o.namespace, o.key, o.value, o.options);
    } catch (e) {
      await flush();
      throw wrapped(i, o, e);
    }
    const fits =
      group.length === 0 ||
      (!ids.has(p.id) &&
        p.kind === (group[0] as P).kind &&
        group.length < puts.maxPuts &&
        size + p.size <= puts.maxSize);
    if (!fits) {
      await flush();
      group = [];
      ids = new Set();
      size = 0;
      first = i;
    }
    group.push(p);
    ids.add(p.id);
    size += p.size;
  }
  await flush();
  return i;
}

/** Write one group; when several puts fail together, put them again one by one. */
async function writeGroup<P extends CheckedPut>(
  store: MemoryStore,
  operations: readonly MemoryOperation[],
  first: number,
  group: readonly P[],
  puts: PutGroups<P>,
): Promise<void> {
  if (group.length === 1) {
    await named(first, operations[first] as MemoryOperation, () => puts.write(group));
    return;
  }
  try {
    await puts.write(group);
  } catch {
    for (let k = first; k < first + group.length; k++) {
      const o = operations[k] as MemoryOperation;
      await named(k, o, () => runOne(store, o));
    }
  }
}

/** Run `f` for operation `i`, its error named as that operation's. */
async function named<T>(i: number, o: MemoryOperation, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw wrapped(i, o, e);
  }
}

/** A store's error as operation `i`'s; other errors as they are. */
function wrapped(i: number, o: MemoryOperation, e: unknown): unknown {
  if (!(e instanceof MemoryStoreError)) return e;
  return new MemoryStoreError(`batch: operation ${i} (${String(o?.op)}): ${e.message}`, {
    cause: e,
    ...(e.namespace !== undefined ? { namespace: e.namespace } : {}),
    ...(e.key !== undefined ? { key: e.key } : {}),
  });
}

function runOne(store: MemoryStore, o: MemoryOperation): Promise<MemoryOperationResult> {
  switch (o?.op) {
    case "get":
      return store.get(o.namespace, o.key);
    case "put":
      return store.put(o.namespace, o.key, o.value, o.options).then(() => undefined);
    case "delete":
      return store.delete(o.namespace, o.key);
    case "list":
      return store.list(o.namespacePrefix, o.options);
    case "search":
      return store.search(o.namespacePrefix, o.options);
    case "listNamespaces":
      return store.listNamespaces(o.options);
    default:
      throw new MemoryStoreError(
        `unknown op ${JSON.stringify((o as { op?: unknown } | null)?.op ?? null)}; use "get", "put", "delete", "list", "search" or "listNamespaces"`,
      );
  }
}
