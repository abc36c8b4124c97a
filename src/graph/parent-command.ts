/**
 * `Command.PARENT`: a node of a subgraph that updates and routes its parent. The child's
 * engine ends its run with a {@link ParentCommand}; `subgraph(...)` turns it into the parent
 * node's own `Command`, whose targets are checked against the parent's flow (not the
 * `subgraph` node's goto list).
 *
 * @module
 */
import { GraphExecutionError } from "../errors/index.js";
import type { Command } from "./routing.js";
import type { RunOptions } from "./types.js";

/**
 * The end of a child run whose node returned `new Command({ graph: Command.PARENT, ... })`.
 * Thrown by the child's `invoke` to the `subgraph(...)` node that runs it; never reaches a
 * caller of a graph that is not a subgraph (such a graph refuses the command instead).
 */
export class ParentCommand extends Error {
  constructor(
    /** The command, as the child's node returned it. */
    readonly command: Command,
    /** The child's node that returned it. */
    readonly node: string,
    /** The child graph's name. */
    readonly graphName: string,
  ) {
    super(
      `Node "${node}" of graph "${graphName}" handed a Command to its parent graph; the subgraph node applies it`,
    );
    this.name = "ParentCommand";
  }
}

const subgraphRuns = new WeakSet<RunOptions>();

/** Mark the options of a child run made by `subgraph(...)`: its nodes may return `Command.PARENT`. */
export function markSubgraphRun(options: RunOptions): void {
  subgraphRuns.add(options);
}

/** Whether `options` are those of a child run made by `subgraph(...)`. */
export function isSubgraphRun(options: RunOptions): boolean {
  return subgraphRuns.has(options);
}

/** Where a command a `subgraph(...)` node returns came from: the child's node and graph. */
const fromChild = new WeakMap<Command, { node: string; graphName: string }>();

/** Mark the command a `subgraph` node returns for a child's `Command.PARENT`. */
export function markFromChild(command: Command, from: ParentCommand): Command {
  fromChild.set(command, { node: from.node, graphName: from.graphName });
  return command;
}

/** The child node and graph of a command made by {@link markFromChild}, or `undefined`. */
export function childOrigin(command: Command): { node: string; graphName: string } | undefined {
  return fromChild.get(command);
}

/** The error of a `Command.PARENT` returned by a node of a graph that is not running as a subgraph. */
export function noParentError(graphName: string, node: string, step: number): GraphExecutionError {
  return new GraphExecutionError(
    `Node "${node}" of graph "${graphName}" returned a Command for its parent graph (Command.PARENT), but graph "${graphName}" is not running as a subgraph, so there is no parent to update; run it through subgraph(...) in a parent graph, or return a Command without graph`,
    { graph: graphName, node, step },
  );
}
