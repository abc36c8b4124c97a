/**
 * `Command.PARENT`: a node of a subgraph that updates and routes its parent. The child's
 * engine ends its run with a {@link ParentCommand}; `subgraph(...)` turns it into the parent
 * node's own `Command`, whose targets are checked against the parent's flow (not the
 * `subgraph` node's goto list).
 *
 * @module
 */
import { GraphExecutionError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { Command, END, type GotoTarget, isEnd, Send } from "./routing.js";
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

/** Child runs made by `subgraph(...)` → the parent's task that runs them (see {@link parentTaskKey}), or `null`. */
const subgraphRuns = new WeakMap<RunOptions, string | null>();

/**
 * Mark the options of a child run made by `subgraph(...)`: its nodes may return
 * `Command.PARENT`. `parentTask` (see {@link parentTaskKey}) is recorded with a hand-off, so
 * that the parent's task, run again after a crash, finds the command its child handed it.
 */
export function markSubgraphRun(options: RunOptions, parentTask: string | null = null): void {
  subgraphRuns.set(options, parentTask);
}

/** Whether `options` are those of a child run made by `subgraph(...)`. */
export function isSubgraphRun(options: RunOptions): boolean {
  return subgraphRuns.has(options);
}

/** The parent's task a child run was made for (see {@link markSubgraphRun}), or `null`. */
export function subgraphParentTask(options: RunOptions): string | null {
  return subgraphRuns.get(options) ?? null;
}

/** The key of a parent's task in a child's hand-off: `"<thread>/<branch>/<task id>"` (JSON-quoted parts). */
export function parentTaskKey(threadId: string, branchId: string, taskId: string): string {
  return JSON.stringify([threadId, branchId, taskId]);
}

/** A `goto` target as stored: a node's name, `"__end__"`, or `{ send, payload }` for a `Send`. */
type StoredTarget = string | { send: string; payload: JsonObject | null };

function targetName(t: GotoTarget): string {
  return typeof t === "string" ? t : isEnd(t) ? t.name : (t as { name: string }).name;
}

/**
 * A `Command.PARENT`'s `update` and `goto` as stored in the child's `run_finished` event (a
 * node's own objects become their names). The update is stored as the node gave it: a value
 * that is not JSON makes the store refuse the event with `StateStoreError`.
 */
export function encodeParentCommand(command: Command): JsonObject {
  const out: JsonObject = { update: (command.update ?? null) as JsonValue };
  if (command.goto !== null) {
    const list = Array.isArray(command.goto) ? command.goto : [command.goto as GotoTarget];
    const stored: StoredTarget[] = list.map((t: GotoTarget) =>
      t instanceof Send
        ? {
            send: typeof t.node === "string" ? t.node : t.node.name,
            payload: t.payload as JsonObject | null,
          }
        : targetName(t),
    );
    out.goto = (Array.isArray(command.goto) ? stored : stored[0]) as JsonValue;
  }
  return out;
}

/** Read back a command stored by {@link encodeParentCommand} (as a command of the parent's own graph). */
export function decodeParentCommand(stored: JsonObject): Command {
  const decode = (t: StoredTarget): GotoTarget =>
    typeof t === "string" ? (t === END.name ? END : t) : new Send(t.send, t.payload);
  const goto = stored.goto as StoredTarget | StoredTarget[] | undefined;
  return new Command({
    update: (stored.update ?? null) as Record<string, unknown> | null,
    goto: goto === undefined ? null : Array.isArray(goto) ? goto.map(decode) : decode(goto),
  });
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
