/**
 * `subgraph`: run a graph as a node of another graph.
 *
 * @module
 */
import {
  GraphConfigError,
  GraphExecutionError,
  ThreadBusyError,
  ValueError,
} from "../errors/index.js";
import { isPlainObject, type JsonValue } from "../json/index.js";
import { nodeCrypto } from "../lazy.js";
import { addMessages } from "../state/add-messages.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { registerChildGraph } from "./child-states.js";
import { GraphInterrupt, type NodeContext } from "./context.js";
import type { Graph } from "./graph.js";
import type { FieldSchema } from "./io-schema.js";
import { type Node, node } from "./node.js";
import {
  decodeParentCommand,
  markFromChild,
  markSubgraphRun,
  ParentCommand,
  parentTaskKey,
} from "./parent-command.js";
import { Command } from "./routing.js";
import { locateStable, stableOnFork } from "./stable-fork.js";
import { markRewind, stableTarget } from "./stable-rewind.js";
import type { RunOptions, StreamEvent } from "./types.js";

/** Options of {@link subgraph}: exactly one of `stateIn` with `stateOut`, or `share`. */
export interface SubgraphOptions<P, C> {
  /** Builds the child's input from the parent state. */
  stateIn?: (parent: P) => Record<string, unknown>;
  /** Builds the parent's update (a plain object) from the child's final state. */
  stateOut?: (child: C) => Record<string, unknown>;
  /** Fields both graphs declare: passed in, and written back; instead of `stateIn`/`stateOut`. */
  share?: readonly string[];
  /** `"fresh"`: a new child thread `"<parent thread>:<name>:<random hex>"` per call; `"stable"`: `"<parent thread>:<name>"`, which keeps the child's state. */
  childThread: "fresh" | "stable";
}

type AnyGraph = Graph<StateDefinition | null, FieldSchema | undefined>;

/** @throws GraphConfigError when the child's or the parent's definition lacks a shared field. */
function checkShared(
  name: string,
  role: "child" | "parent",
  graphName: string,
  def: StateDefinition,
  share: readonly string[],
): void {
  for (const f of share) {
    if (!def.fields.has(f)) {
      throw new GraphConfigError(
        `subgraph "${name}": the ${role} graph "${graphName}" does not declare shared field "${f}"`,
        { graph: graphName, node: name },
      );
    }
  }
}

/**
 * The `Command.PARENT` the child's last run handed the parent's task `taskKey` (its
 * `run_finished` event with `toParent`, see `ThreadJournal.handedToParent`), or `null` when the
 * branch's last event is anything else.
 */
async function handedOff(
  store: StateStore,
  threadId: string,
  branchId: string,
  taskKey: string,
): Promise<{ command: Command; node: string } | null> {
  const branch = await store.getBranch(threadId, branchId);
  if (!branch || branch.lastSeq === 0) return null;
  const [last] = await store.read(threadId, branchId, { afterSeq: branch.lastSeq - 1 });
  const d = last?.data;
  if (last?.type !== "run_finished" || !isPlainObject(d)) return null;
  if (d.parentTask !== taskKey || typeof d.toParent !== "string" || !isPlainObject(d.command))
    return null;
  return { command: decodeParentCommand(d.command), node: d.toParent };
}

/**
 * Wrap a graph as a node of another graph.
 *
 * The child runs on the parent's state store, with the parent's context and signal, on the
 * `"main"` branch of its thread. An unanswered interrupt in the child pauses the parent under
 * the key `"<task id>/<child key>"`; answering it resumes the child where it paused. Events the
 * child emits reach the parent's stream (for the modes the parent streams) with
 * `node: "<name>/<child node>"` and `taskId: "<task id>/<child task id>"`.
 *
 * @throws TypeError unless exactly one of `stateIn` with `stateOut`, or a non-empty `share`, is given.
 * @throws ValueError if `childThread` is not `"fresh"` or `"stable"`.
 * @throws GraphConfigError if the child graph has a state store or does not declare a `share` field.
 *
 * When the node runs: GraphConfigError if the parent does not declare a `share` field or
 * `"stable"` runs without a thread on a state store; TypeError if `stateOut` returns no plain
 * object; GraphExecutionError if a shared field with a custom reducer changed in the child, or
 * the child's thread is already running.
 *
 * @example
 * ```ts
 * const research = subgraph("research", researchAgent, { share: ["messages"], childThread: "fresh" });
 * ```
 */
export function subgraph<P = Record<string, unknown>, C = Record<string, unknown>>(
  name: string,
  graph: AnyGraph,
  options: SubgraphOptions<P, C>,
): Node<P> {
  const { stateIn, stateOut, share, childThread } = options ?? ({} as SubgraphOptions<P, C>);
  const hasIO = stateIn !== undefined || stateOut !== undefined;
  const hasShare = share !== undefined;
  if (
    hasIO === hasShare ||
    (hasIO && (typeof stateIn !== "function" || typeof stateOut !== "function")) ||
    (hasShare && (!Array.isArray(share) || share.length === 0))
  ) {
    throw new TypeError(
      `subgraph "${name}": give exactly one of stateIn with stateOut (two functions), or a non-empty share list`,
    );
  }
  if (childThread !== "fresh" && childThread !== "stable") {
    throw new ValueError(
      `subgraph "${name}": childThread must be "fresh" or "stable", got ${JSON.stringify(childThread)}`,
    );
  }
  if (graph.stateStore !== null) {
    throw new GraphConfigError(
      `subgraph "${name}": the child graph "${graph.name}" has a state store of its own; a child runs on its parent's store`,
      { graph: graph.name, node: name },
    );
  }
  if (share && graph.state) checkShared(name, "child", graph.name, graph.state, share);
  // Parent definitions already checked (the parent is known only when the node runs).
  const checkedParents = new WeakSet<StateDefinition>();
  graph.compiled; // a child without a flow fails here, when the parent is built

  const n = node<P>(
    async (state: P, ctx: NodeContext) => {
      const parent = state as Record<string, unknown>;
      const parentDef = ctx.stateSchema;
      if (share && parentDef && !checkedParents.has(parentDef)) {
        checkShared(name, "parent", ctx.graphName, parentDef, share);
        checkedParents.add(parentDef);
      }
      const store = ctx.stateStore;
      const cache = ctx.cache;
      // The child runs on the parent's branch: "main" on "main"; on a fork, a branch of the
      // same name of the child's thread, forked from the child's event as of the parent's fork.
      const childBranch = ctx.branchId;
      const fromBranch = typeof cache.childBranch === "string" ? cache.childBranch : "main";
      const inherited = fromBranch !== childBranch;
      let threadId: string | null;
      // Whether this task may have run its child before (a crash, then the thread continued).
      let ranBefore = false;
      if (childThread === "stable") {
        if (!store || ctx.threadId === null) {
          throw new GraphConfigError(
            `subgraph "${name}": childThread "stable" needs the parent to run on a thread with a state store`,
            { graph: ctx.graphName, node: name },
          );
        }
        threadId = `${ctx.threadId}:${name}`;
        if (childBranch !== "main") {
          if (inherited && typeof cache.childEvent === "string") {
            // Paused as of the fork: a branch of the thread it paused on (below).
            if (typeof cache.childThread === "string") threadId = cache.childThread;
          } else {
            // The branch's child location, or (its first call) one as of the fork: see stable-fork.ts.
            const on =
              (await locateStable(store, ctx.threadId, childBranch, threadId)) ??
              (await stableOnFork(store, ctx.threadId, childBranch, name, threadId, cache));
            threadId = on.threadId;
            if (on.kind === "own") cache.childOwnBranch = "main";
            else delete cache.childOwnBranch;
          }
        }
      } else {
        // A child thread made on another branch is that branch's, unless it paused as of the fork.
        const saved = inherited && cache.childPaused !== true ? undefined : cache.childThread;
        threadId =
          typeof saved === "string"
            ? saved
            : store && ctx.threadId !== null
              ? `${ctx.threadId}:${name}:${nodeCrypto().randomBytes(6).toString("hex")}`
              : null;
        ranBefore = typeof saved === "string";
        if (threadId !== null && saved === undefined) {
          cache.childThread = threadId;
          cache.childBranch = childBranch;
          delete cache.childEvent;
          // A new thread has only "main": a child made on a fork runs there, not on the fork's name.
          if (childBranch === "main") delete cache.childOwnBranch;
          else cache.childOwnBranch = "main";
          await ctx.saveCache();
        }
      }
      if (threadId !== null && inherited && typeof cache.childEvent === "string") {
        // First run of this child on the fork: its own branch, as of the fork.
        const s = store as StateStore;
        if (!(await s.getBranch(threadId, childBranch)))
          await s.createBranch(threadId, cache.childEvent, childBranch);
        delete cache.childOwnBranch;
      }
      if (threadId !== null) cache.childBranch = childBranch;
      // The child thread's branch the child runs on (see childOwnBranch above).
      const runBranch =
        typeof cache.childOwnBranch === "string" ? cache.childOwnBranch : childBranch;
      // Where the parent knows its stable child; a child past it goes back there first (its
      // runs the parent lost, see stable-rewind.ts).
      let rewindTo: string | null | undefined;
      if (childThread === "stable") {
        // Only a call the parent knows started may take a command its child handed it.
        ranBefore = "childBefore" in cache;
        const parentCall = {
          threadId: ctx.threadId as string,
          branchId: childBranch,
          step: ctx.step,
        };
        const at = await stableTarget(
          store as StateStore,
          threadId as string,
          runBranch,
          parentCall,
          cache,
        );
        if (at.target !== at.head) rewindTo = at.target;
        if (!("childBefore" in cache)) {
          // Where the child was before this call, on every branch: a fork of the parent from
          // before the call starts the fork's child there (see stable-fork.ts).
          cache.childBefore = at.target;
          await ctx.saveCache();
        }
      }
      const prefix = `${ctx.taskId}/`;
      const answers: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(ctx.resumeValues))
        if (k.startsWith(prefix)) answers[k.slice(prefix.length)] = v;
      const paused = cache.childPaused === true && threadId !== null;

      const runOptions: RunOptions = {
        signal: ctx.signal,
        rootRunId: ctx.rootRunId,
        stateStore: store,
      };
      const taskKey =
        threadId !== null && ctx.threadId !== null
          ? parentTaskKey(ctx.threadId, ctx.branchId, ctx.taskId)
          : null;
      markSubgraphRun(runOptions, taskKey);
      if (rewindTo !== undefined) markRewind(runOptions, rewindTo);
      if (threadId !== null) {
        runOptions.threadId = threadId;
        runOptions.branchId = runBranch;
        if (taskKey !== null && (ranBefore || paused)) {
          // The child handed this very task a Command.PARENT, and the parent stopped before
          // recording its result: the child's log holds the command; apply it, once.
          const handed = await handedOff(store as StateStore, threadId, runBranch, taskKey);
          if (handed) {
            const from = new ParentCommand(handed.command, handed.node, graph.name);
            return markFromChild(handed.command, from) as never;
          }
        }
      }
      if (ctx.hasContext) runOptions.context = ctx.context;
      if (graph.memoryStore === null && ctx.memoryStore) runOptions.memoryStore = ctx.memoryStore;
      if (ctx.streamModes.length > 0) {
        runOptions.modes = ctx.streamModes;
        // Every mode alike: the child's node and task ids under this node's, at this step
        // (a "debug" event's data keeps the child's own step).
        runOptions.onEvent = (e: StreamEvent) =>
          ctx.emitEvent({
            ...e,
            node: e.node === null ? name : `${name}/${e.node}`,
            step: ctx.step,
            taskId: e.taskId === null ? ctx.taskId : `${ctx.taskId}/${e.taskId}`,
          });
      }
      let input: Record<string, unknown> | null;
      if (paused) {
        input = null;
        // Only the answers the child is waiting on: the parent's task keeps every answer of
        // its superstep, and the child may have consumed some in a superstep it committed.
        // (As of where it paused, when it goes back there.)
        const waiting = await graph.getState(threadId as string, {
          stateStore: store as StateStore,
          branchId: runBranch,
          ...(typeof rewindTo === "string" ? { eventId: rewindTo } : {}),
        });
        const keys = new Set(waiting.interrupts.map((i) => i.key));
        for (const k of Object.keys(answers)) if (!keys.has(k)) delete answers[k];
        runOptions.resume = answers;
      } else if (share) {
        input = {};
        for (const f of share) if (parent[f] !== undefined) input[f] = parent[f];
      } else {
        input = stateIn!(state);
      }
      let result: Awaited<ReturnType<AnyGraph["invoke"]>>;
      try {
        result = await graph.invoke(input as never, runOptions);
      } catch (e) {
        if (e instanceof ParentCommand) {
          // A child's node routed this graph: the subgraph node returns its update and goto
          // (targets checked against this graph's flow, fields against its state).
          const c = e.command;
          return markFromChild(new Command({ update: c.update, goto: c.goto }), e) as never;
        }
        if (e instanceof ThreadBusyError) {
          throw new GraphExecutionError(
            `subgraph "${name}": its child thread "${threadId}" is already running`,
            { graph: ctx.graphName, node: name, step: ctx.step, cause: e },
          );
        }
        throw e;
      }
      if (result.status === "interrupted") {
        cache.childPaused = true;
        // A child paused at a static breakpoint pauses the parent too, which shows it.
        if (result.breakpoint)
          cache.childBreakpoint = {
            when: result.breakpoint.when,
            nodes: result.breakpoint.nodes.map((n) => `${name}/${n}`),
          };
        else delete cache.childBreakpoint;
        if (threadId !== null) {
          cache.childThread = threadId;
          // Where the child paused: a fork of the parent from here forks the child from there.
          const at = await graph.getState(threadId, {
            stateStore: store as StateStore,
            branchId: runBranch,
          });
          if (at.lastEventId !== null) cache.childEvent = at.lastEventId;
        }
        throw new GraphInterrupt(
          result.interrupts.map((i) => ({ key: `${prefix}${i.key}`, value: i.value as JsonValue })),
        );
      }
      const child = result.state as Record<string, unknown>;
      if (share) {
        const update: Record<string, unknown> = {};
        for (const f of share) {
          const spec = parentDef?.fields.get(f);
          const changed = JSON.stringify(child[f]) !== JSON.stringify(parent[f]);
          if (spec?.reducer && spec.reducer !== (addMessages as unknown)) {
            if (changed) {
              throw new GraphExecutionError(
                `subgraph "${name}": shared field "${f}" has a custom reducer and the child changed it; share only fields without a reducer (or messages), or use stateIn/stateOut`,
                { graph: ctx.graphName, node: name, step: ctx.step },
              );
            }
            continue;
          }
          if (changed) update[f] = child[f];
        }
        return update;
      }
      const out = stateOut!(child as C);
      if (!isPlainObject(out))
        throw new TypeError(
          `subgraph "${name}": stateOut must return a plain object (the parent's update), got ${out === null ? "null" : Array.isArray(out) ? "an array" : typeof out}`,
        );
      return out;
    },
    { name },
  );
  registerChildGraph(n, graph as Graph<never>);
  return n;
}
