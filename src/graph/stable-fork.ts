/**
 * Where a `"stable"` subgraph child runs on a forked parent branch when it was not paused as of
 * the fork: from its state as of the fork. Each stable call on the main branch records, in its
 * task's cache before the child runs, the child's last event (`childBefore`); the child as of a
 * fork is the `childBefore` of the first call the main branch made after the fork (or of the
 * forked task itself, when it had started), else the child's main branch as it is now.
 *
 * @module
 */
import type { JsonObject } from "../json/index.js";
import type { StateStore } from "../stores/types.js";

/** The id of the last event of `threadId`'s `branchId`, or `null` when it has none. */
export async function childHead(
  store: StateStore,
  threadId: string,
  branchId: string,
): Promise<string | null> {
  const b = await store.getBranch(threadId, branchId);
  if (!b || b.lastSeq === 0) return null;
  const [last] = await store.read(threadId, branchId, { afterSeq: b.lastSeq - 1 });
  return last?.id ?? null;
}

/** Where the branch's child runs: a branch of the stable thread, or a thread of its own. */
export type StableOnFork =
  | { kind: "branch"; threadId: string }
  | { kind: "own"; threadId: string }
  | { kind: "refused"; why: string };

/**
 * Settle the child thread of a stable call on the forked parent branch `branchId` that has
 * none yet: a branch `branchId` of `stable` forked from the child's event as of the parent's
 * fork, or, when the child had no event then, the thread `"<stable>@<branchId>"` of its own
 * (run on its `"main"`), which later calls on the branch find again.
 */
export async function stableOnFork(
  store: StateStore,
  parentThread: string,
  branchId: string,
  node: string,
  stable: string,
  cache: JsonObject,
): Promise<StableOnFork> {
  const own = `${stable}@${branchId}`;
  if (await store.getBranch(own, "main")) return { kind: "own", threadId: own };
  let asOf: string | null | undefined;
  if (typeof cache.childBefore === "string" || cache.childBefore === null) {
    // The forked task had started on the main branch before the fork: the child before it.
    asOf = cache.childBefore;
  } else {
    const info = await store.getBranch(parentThread, branchId);
    const from = info?.parent ?? null;
    if (from === null || from.branchId !== "main") {
      return {
        kind: "refused",
        why: `the parent branch "${branchId}" was forked from ${from === null ? "no branch" : `branch "${from.branchId}"`}, not from "main"`,
      };
    }
    for (const e of await store.read(parentThread, "main", { afterSeq: from.seq })) {
      if (e.type !== "task_cache" || e.node !== node) continue;
      const saved = (e.data as { cache?: { childBefore?: unknown } } | null)?.cache?.childBefore;
      if (typeof saved === "string" || saved === null) {
        asOf = saved;
        break;
      }
    }
    if (asOf === undefined) asOf = await childHead(store, stable, "main");
  }
  if (asOf === null) return { kind: "own", threadId: own };
  await store.createBranch(stable, asOf, branchId);
  return { kind: "branch", threadId: stable };
}
