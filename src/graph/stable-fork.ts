/**
 * Where a `"stable"` subgraph child runs on a forked parent branch, and, when it has not run
 * there yet and was not paused as of the fork, where it starts: from its state as of the fork.
 *
 * Each branch of the parent has one child location: `"main"` of the stable thread
 * `"<parent thread>:<name>"` on the parent's `"main"`; on a fork, a branch of the same name of
 * the thread its parent branch's child ran on (forked from the child's event as of the fork),
 * or a thread of its own, `"<stable>@<branch>"` (run on its `"main"`), when the child had no
 * event then. Each stable call, on every branch, records in its task's cache before the child
 * runs the child's last event (`childBefore`); the child as of a fork from branch `Y` is the
 * `childBefore` of the forked task itself when it had started, else of the first call `Y` made
 * after the fork, else `Y`'s child as it is now, else (`Y` never ran its child) `Y`'s own child
 * as of its fork, and so on up to `"main"`. So a fork of a fork works as a fork of `"main"`.
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

/** Where a parent branch's stable child runs: a branch of a child thread, or a thread of its own (its `"main"`). */
export type StableOnFork = { kind: "branch"; threadId: string } | { kind: "own"; threadId: string };

/** The parent branch's ancestors, nearest first (`"main"` last when the branch descends from it). */
async function ancestors(store: StateStore, parentThread: string, branchId: string) {
  const out: { branchId: string; seq: number }[] = [];
  const seen = new Set([branchId]);
  let b = branchId;
  for (;;) {
    const from = (await store.getBranch(parentThread, b))?.parent ?? null;
    if (from === null || seen.has(from.branchId)) return out;
    out.push(from);
    seen.add(from.branchId);
    b = from.branchId;
  }
}

/**
 * The child location the forked parent branch `branchId` already has, or `null`: its own
 * thread `"<stable>@<branchId>"`, or a branch `branchId` of the stable thread or of an
 * ancestor branch's own thread.
 */
export async function locateStable(
  store: StateStore,
  parentThread: string,
  branchId: string,
  stable: string,
): Promise<StableOnFork | null> {
  const own = `${stable}@${branchId}`;
  if (await store.getBranch(own, "main")) return { kind: "own", threadId: own };
  if (await store.getBranch(stable, branchId)) return { kind: "branch", threadId: stable };
  for (const a of await ancestors(store, parentThread, branchId)) {
    if (a.branchId === "main") continue;
    const t = `${stable}@${a.branchId}`;
    if (await store.getBranch(t, branchId)) return { kind: "branch", threadId: t };
  }
  return null;
}

/** The first `childBefore` that a call of `node` recorded on `branchId` after `seq`, if any. */
async function recordedAfter(
  store: StateStore,
  parentThread: string,
  branchId: string,
  seq: number,
  node: string,
): Promise<string | null | undefined> {
  for (const e of await store.read(parentThread, branchId, { afterSeq: seq })) {
    if (e.type !== "task_cache" || e.node !== node) continue;
    const saved = (e.data as { cache?: { childBefore?: unknown } } | null)?.cache?.childBefore;
    if (typeof saved === "string" || saved === null) return saved;
  }
  return undefined;
}

/** The child's last event as of the fork of the parent branch `branchId` (`null`: none). */
async function asOfFork(
  store: StateStore,
  parentThread: string,
  branchId: string,
  node: string,
  stable: string,
): Promise<string | null> {
  for (const from of await ancestors(store, parentThread, branchId)) {
    const saved = await recordedAfter(store, parentThread, from.branchId, from.seq, node);
    if (saved !== undefined) return saved;
    if (from.branchId === "main") return childHead(store, stable, "main");
    const at = await locateStable(store, parentThread, from.branchId, stable);
    if (at !== null)
      return childHead(store, at.threadId, at.kind === "own" ? "main" : from.branchId);
    // That branch never ran its child after its own fork: its child as of its fork, further up.
  }
  // A branch that descends from no "main" (a root branch of its own): the child had no state.
  return null;
}

/**
 * Settle the child location of a stable call on the forked parent branch `branchId` that has
 * none yet (see {@link locateStable}): a branch `branchId` of the thread of the child's event
 * as of the parent's fork, or, when the child had no event then, the thread
 * `"<stable>@<branchId>"` of its own (run on its `"main"`), which later calls on the branch
 * find again.
 */
export async function stableOnFork(
  store: StateStore,
  parentThread: string,
  branchId: string,
  node: string,
  stable: string,
  cache: JsonObject,
): Promise<StableOnFork> {
  // The forked task had started before the fork: the child before it.
  const asOf =
    typeof cache.childBefore === "string" || cache.childBefore === null
      ? cache.childBefore
      : await asOfFork(store, parentThread, branchId, node, stable);
  if (asOf === null) {
    const own = `${stable}@${branchId}`;
    return { kind: "own", threadId: own };
  }
  const event = await store.getEvent(asOf);
  const threadId = event?.threadId ?? stable;
  await store.createBranch(threadId, asOf, branchId);
  return { kind: "branch", threadId };
}
