/**
 * Deleting threads: `deleteThread`'s options, which threads a deletion covers, and the
 * deletion run while holding the leases of the branches it deletes. Internal (see
 * `internal.ts`).
 *
 * @module
 */
import { StateStoreError, ThreadBusyError } from "../errors/index.js";
import { nodeCrypto } from "../lazy.js";
import { checkThreadId } from "./ids.js";
import { checkOptions } from "./list-options.js";
import { show } from "./show-value.js";
import type { DeleteThreadOptions, StateStore } from "./types.js";

/** `deleteThread` options checked: whether to delete child threads too. */
export function deleteChildren(
  threadId: string,
  options: DeleteThreadOptions | undefined,
): boolean {
  checkThreadId(threadId);
  checkOptions("deleteThread", options, ["children"]);
  const children = options?.children ?? false;
  if (typeof children !== "boolean") {
    throw new StateStoreError(`deleteThread: children must be a boolean, got ${show(children)}`, {
      threadId,
      field: "children",
    });
  }
  return children;
}

/** Whether `id` is `threadId` or (with `children`) one of its child threads. */
export function isDeleted(id: string, threadId: string, children: boolean): boolean {
  return id === threadId || (children && id.startsWith(`${threadId}:`));
}

/**
 * How many times a deletion starts over when its transaction meets a branch it did not list
 * (a fork made meanwhile, whose lease it does not hold) before it gives up.
 */
export const MAX_DELETE_ATTEMPTS = 3;

/** How long a deletion holds the leases of the branches it deletes, in ms. */
const DELETE_LEASE_MS = 60_000;

/**
 * The branches whose leases a deletion of this process holds, by store object (counted:
 * `"<threadId>\u0000<branchId>"` → holders), so that a second deletion meeting one says so.
 */
const deleting = new WeakMap<object, Map<string, number>>();

/**
 * Take the lease of every `[threadId, branchId]` (by the store's own rules, which know dead
 * writers), run `remove`, then give the leases back, which deletes their rows (a lease left
 * by a dead writer was replaced by the deletion's own). A branch whose lease another owner
 * holds makes it throw `ThreadBusyError` before anything is removed: "is being deleted" when
 * the holder is another deletion on the same store object in this process, else "is
 * running" (the `StateStore` contract cannot say who holds a lease, so a deletion through
 * another store object or process reads as a run). (Leases of branches that do not exist
 * yet — a run about to write a thread's first event — are left alone.)
 */
export async function underLeases<T>(
  store: Pick<StateStore, "acquireLease" | "releaseLease">,
  branches: readonly (readonly [string, string])[],
  remove: () => T | Promise<T>,
): Promise<T> {
  const owner = `delete-${nodeCrypto().randomBytes(8).toString("hex")}`;
  const taken: (readonly [string, string])[] = [];
  let held = deleting.get(store);
  if (held === undefined) {
    held = new Map();
    deleting.set(store, held);
  }
  const mine = held;
  const key = (t: string, b: string) => `${t}\u0000${b}`;
  try {
    for (const [t, b] of branches) {
      if (!(await store.acquireLease(t, b, owner, DELETE_LEASE_MS))) {
        throw new ThreadBusyError(
          (mine.get(key(t, b)) ?? 0) > 0
            ? `Thread "${t}" (branch "${b}") is being deleted by another deleteThread call; this one deleted nothing`
            : `Thread "${t}" (branch "${b}") is running; it cannot be deleted until the run ends (or its lease expires)`,
          { threadId: t, branchId: b },
        );
      }
      taken.push([t, b]);
      mine.set(key(t, b), (mine.get(key(t, b)) ?? 0) + 1);
    }
    return await remove();
  } finally {
    for (const [t, b] of taken) {
      // Counted until the lease is given back: a deletion meeting it until then says so,
      // however the store orders its calls' settling (SQLite commits them in batches).
      await store.releaseLease(t, b, owner).catch(() => {});
      const n = (mine.get(key(t, b)) ?? 1) - 1;
      if (n > 0) mine.set(key(t, b), n);
      else mine.delete(key(t, b));
    }
  }
}
