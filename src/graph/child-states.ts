/**
 * The child states of a position: for each task of the superstep that runs next whose node is
 * a subgraph with a child thread (kept in the task's cache), the child's state as the parent's
 * branch sees it. `graph.getState(threadId, { subgraphs: true })` uses it.
 *
 * @module
 */
import type { StateStore } from "../stores/types.js";
import type { CompiledFlow } from "./compile.js";
import type { Graph } from "./graph.js";
import type { ThreadPosition } from "./thread-state.js";

/** A child thread's state in a parent's snapshot. */
export interface ChildSnapshot {
  /** The subgraph node's name. */
  node: string;
  /** The child's thread and the branch the parent's branch sees it on. */
  threadId: string;
  branchId: string;
  /** Its state, superstep, next nodes, interrupts, status and last event, as `getState` gives them (its own `subgraphs` included). */
  snapshot: Awaited<ReturnType<Graph<null>["getState"]>>;
}

const childGraphs = new WeakMap<object, Graph<never>>();

/** Record that `node` runs `graph` as a subgraph (called by `subgraph`). */
export function registerChildGraph(node: object, graph: Graph<never>): void {
  childGraphs.set(node, graph);
}

/**
 * The child snapshots of `position` on `branchId`, by parent task id.
 * A child not yet run on a forked parent branch is shown as of the parent's fork (its event where it paused).
 */
export async function childStates(
  flow: CompiledFlow,
  store: StateStore,
  position: ThreadPosition,
  branchId: string,
): Promise<Record<string, ChildSnapshot>> {
  const out: Record<string, ChildSnapshot> = {};
  for (const t of position.tasks) {
    const cache = position.caches[t.id];
    const childThread = cache?.childThread;
    const graph = childGraphs.get(flow.nodes.get(t.name)?.node ?? {});
    if (!graph || typeof childThread !== "string") continue;
    const childBranch = typeof cache?.childBranch === "string" ? cache.childBranch : "main";
    // A "fresh" child made on a fork runs on its new thread's "main" (see subgraph.ts).
    const runBranch =
      typeof cache?.childOwnBranch === "string" ? cache.childOwnBranch : childBranch;
    const options: { stateStore: StateStore; branchId: string; eventId?: string; subgraphs: true } =
      { stateStore: store, branchId: runBranch, subgraphs: true };
    if (childBranch !== branchId && typeof cache?.childEvent === "string") {
      options.eventId = cache.childEvent;
    } else if (childBranch !== branchId) continue;
    const snapshot = await graph.getState(childThread, options);
    out[t.id] = {
      node: t.name,
      threadId: childThread,
      branchId: runBranch,
      snapshot: snapshot as ChildSnapshot["snapshot"],
    };
  }
  return out;
}
