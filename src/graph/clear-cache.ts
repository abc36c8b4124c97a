/**
 * `Graph.clearCache`: dropping a graph's cached node results, of some nodes or of all.
 *
 * @module
 */
import { GraphConfigError, ValueError } from "../errors/index.js";
import { describeValue } from "../state/describe-value.js";
import type { CompiledFlow } from "./compile.js";
import { type NodeCache, nodeCachePrefix } from "./policies.js";

/**
 * Drop the entries of `cache` that graph `graphName` wrote: of the nodes named in `nodes`, or
 * of every node when `nodes` is `undefined`. Nothing to do when `cache` is `null`.
 * @throws TypeError when `nodes` is not a list of strings; ValueError for a name that is not
 *   a node of `flow`; GraphConfigError when `cache` has no `clear` method.
 */
export async function clearNodeCache(
  graphName: string,
  flow: CompiledFlow,
  cache: NodeCache | null,
  nodes: readonly string[] | undefined,
): Promise<void> {
  const bad = Array.isArray(nodes) ? nodes.find((n) => typeof n !== "string") : undefined;
  if (nodes !== undefined && (!Array.isArray(nodes) || bad !== undefined)) {
    // A string would be read as its characters (clearCache("a") clearing node "a").
    throw new TypeError(
      `Graph "${graphName}": clearCache(nodes) takes a list of node names (or nothing, for every node), got ${Array.isArray(nodes) ? `a list holding ${describeValue(bad)}` : describeValue(nodes)}`,
    );
  }
  for (const n of nodes ?? []) {
    if (!flow.nodes.has(n)) {
      throw new ValueError(
        `Graph "${graphName}": clearCache names node "${n}", which is not in the flow; known nodes: ${[...flow.nodes.keys()].join(", ")}`,
      );
    }
  }
  if (cache === null) return;
  if (typeof cache.clear !== "function") {
    throw new GraphConfigError(
      `Graph "${graphName}": its nodeCache has no clear(prefix) method, so clearCache cannot drop entries`,
      { graph: graphName },
    );
  }
  if (nodes === undefined) await cache.clear(nodeCachePrefix(graphName));
  else for (const n of nodes) await cache.clear(nodeCachePrefix(graphName, n));
}
