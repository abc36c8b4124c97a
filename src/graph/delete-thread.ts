/**
 * Deleting a thread through a graph: the store deletes it, the graph's node cache drops the
 * entries its runs wrote, and the graph forgets the positions it kept of it. `Graph.deleteThread` delegates here.
 *
 * @module
 */
import { GraphConfigError, ValueError } from "../errors/index.js";
import type { DeleteThreadOptions, StateStore } from "../stores/types.js";
import type { NodeCache } from "./policies.js";
import { type PositionCache, positionsOf } from "./run-setup.js";

/** See `Graph.deleteThread`. */
export async function deleteGraphThread(
  graph: {
    readonly name: string;
    readonly stateStore: StateStore | null;
    readonly nodeCache: NodeCache | null;
  },
  positions: PositionCache,
  threadId: string,
  options: DeleteThreadOptions,
): Promise<string[]> {
  const store = graph.stateStore;
  if (!store) {
    throw new GraphConfigError(`Graph "${graph.name}" has no stateStore; deleteThread needs one`, {
      graph: graph.name,
    });
  }
  if (options === null || typeof options !== "object") {
    throw new ValueError(`Graph "${graph.name}": deleteThread options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (key !== "children") {
      throw new ValueError(
        `Graph "${graph.name}": unknown deleteThread option "${key}"; the option is "children"`,
      );
    }
  }
  const deleted = await store.deleteThread(threadId, { children: options.children ?? false });
  // The node cache entries the deleted threads' runs wrote go with them.
  const forget = graph.nodeCache?.forgetThread?.bind(graph.nodeCache);
  if (forget) for (const id of deleted) await forget(id);
  const gone = new Set(deleted);
  const cached = positionsOf(positions, store);
  for (const key of [...cached.keys()]) {
    if (gone.has(key.slice(0, key.lastIndexOf("\u0000")))) cached.delete(key);
  }
  return deleted;
}
