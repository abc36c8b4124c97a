/**
 * Editing a thread's state from outside a node: `graph.updateState(threadId, update,
 * { asNode, branchId })` (LangGraph's `updateState`), and the `update` / `goto` of a `Command`
 * given as a run's input. Each is one `state_updated` event, folded by `applyStateUpdated`
 * (`thread-state.ts`) both live and from the log.
 *
 * @module
 */
import { GraphConfigError, UnknownBranchError, ValueError } from "../errors/index.js";
import {
  applyUpdate,
  describeValue,
  type PreparedUpdate,
  preparePayload,
  prepareUpdate,
  type StateDefinition,
} from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { type CompiledFlow, END_NAME } from "./compile.js";
import type { EngineGraph, TaskResult, TaskSpec } from "./engine-types.js";
import { settleNext } from "./joins.js";
import { ThreadJournal } from "./journal.js";
import { type GotoTarget, isEnd, Send } from "./routing.js";
import { newRunId } from "./run-id.js";
import { checkReadOptions } from "./run-options.js";
import { type PositionCache, positionsOf, rememberPosition } from "./run-setup.js";
import { scheduleNext } from "./schedule.js";
import { snapshotOf, type ThreadSnapshot } from "./thread-ops.js";
import { applyStateUpdated, type StateUpdatedData, type ThreadPosition } from "./thread-state.js";

/** Options of `graph.updateState`. */
export interface UpdateStateOptions {
  /**
   * Apply the update as if this node had returned it: its errors are that node's, and its
   * edges (evaluated on the new state) decide what runs next. Without it, the tasks that were
   * next stay next.
   */
  asNode?: string;
  /** Branch of the thread; default `"main"`. */
  branchId?: string;
}

/** What planning a state update reads of a graph. */
interface UpdateGraph {
  readonly name: string;
  readonly state: StateDefinition | null;
  readonly flow: CompiledFlow;
}

/**
 * Check and plan an update of position `tp`: prepared and applied through the reducers
 * (refused with a node's errors), and the superstep it leads to (`asNode`'s edges, or `goto`).
 * `fromCommand`: the update is a `Command`'s given as a run's input, and errors name it so
 * ("the Command's update", `node` `"__command__"`) rather than `graph.updateState`'s.
 * `preparedUpdate`: `update` already prepared (`prepareUpdate` with that writer), or `null`.
 * @throws ValueError for an `asNode` or `goto` target that is not a node of the flow;
 *   StateUpdateError (or what a reducer throws) for an update that a node could not return.
 */
export async function planStateUpdate(
  graph: UpdateGraph,
  tp: ThreadPosition,
  update: unknown,
  asNode: string | null,
  goto: GotoTarget | ReadonlyArray<GotoTarget> | null,
  fromCommand = false,
  preparedUpdate: PreparedUpdate | null = null,
): Promise<StateUpdatedData> {
  if (asNode !== null && !graph.flow.nodes.has(asNode)) {
    throw new ValueError(
      `Graph "${graph.name}": updateState asNode "${asNode}" is not a node of the flow; known nodes: ${[...graph.flow.nodes.keys()].join(", ")}`,
    );
  }
  const writer = asNode ?? (fromCommand ? "__command__" : "__update__");
  let prepared: PreparedUpdate | null = null;
  if (update !== null || asNode !== null || goto === null) {
    const p = preparedUpdate ?? prepareUpdate(graph.state, update, writer);
    for (const _ in p) {
      prepared = p;
      break;
    }
  }
  // Applied here once so that an update a reducer refuses is refused before anything is written.
  const state = prepared ? applyUpdate(graph.state, tp.state, prepared, writer) : tp.state;
  let next: TaskSpec[] | null = null;
  const step = tp.step + 1;
  const init = tp.lastSeq === 0 ? tp.state : null;
  if (asNode !== null) {
    next = [];
    const task: TaskSpec = { id: "update", name: asNode, payload: null };
    const results = new Map<string, TaskResult>([
      [task.id, { kind: "done", update: prepared, routes: null }],
    ]);
    const pending = scheduleNext(
      { flow: graph.flow } as EngineGraph,
      [task],
      results,
      state,
      next,
      new Set(),
      step,
    );
    if (pending) await pending;
    if (graph.flow.waits || tp.deferred) {
      // asNode counts for the joins it is a source of, as if it had run.
      const settled = settleNext(graph.flow, [task], results, next, tp, step);
      return { init, update: prepared, asNode, next: settled.next, waiting: settled.waiting };
    }
  } else if (goto !== null) {
    next = gotoTasks(graph, goto, step);
    if (graph.flow.waits || tp.deferred) {
      const settled = settleNext(graph.flow, null, null, next, tp, step);
      return { init, update: prepared, asNode, next: settled.next, waiting: settled.waiting };
    }
  }
  return { init, update: prepared, asNode, next };
}

/** The tasks a run-input `Command.goto` sets: each `Send` a task of its own, a node named twice once, END none. */
function gotoTasks(
  graph: UpdateGraph,
  goto: GotoTarget | ReadonlyArray<GotoTarget>,
  step: number,
): TaskSpec[] {
  const out: TaskSpec[] = [];
  const seen = new Set<string>();
  for (const t of Array.isArray(goto) ? goto : [goto]) {
    if (isEnd(t)) continue;
    const target = t instanceof Send ? t.node : t;
    const name = typeof target === "string" ? target : (target as { name: string }).name;
    if (name === END_NAME) continue;
    if (!graph.flow.nodes.has(name)) {
      throw new ValueError(
        `Graph "${graph.name}": Command.goto names node "${name}", which is not in the flow; known nodes: ${[...graph.flow.nodes.keys()].join(", ")}`,
      );
    }
    if (t instanceof Send) {
      out.push({
        id: `${step}:${out.length}`,
        name,
        payload: preparePayload(graph.state, t.payload, name) ?? {},
      });
    } else if (!seen.has(name)) {
      seen.add(name);
      out.push({ id: `${step}:${out.length}`, name, payload: null });
    }
  }
  return out;
}

/** What `updateThreadState` reads of a graph. */
export interface UpdatableGraph {
  readonly name: string;
  readonly state: StateDefinition | null;
  readonly stateStore: StateStore | null;
  readonly compiled: CompiledFlow;
  readonly leaseTtlMs: number;
}

/** See `Graph.updateState`. */
export async function updateThreadState<S>(
  graph: UpdatableGraph,
  positions: PositionCache,
  threadId: string,
  update: unknown,
  options: UpdateStateOptions,
): Promise<ThreadSnapshot<S>> {
  checkReadOptions(graph.name, threadId, options, ["branchId", "asNode"]);
  for (const key of Object.keys(options)) {
    if (key !== "asNode" && key !== "branchId") {
      throw new TypeError(
        `Graph "${graph.name}": unknown updateState option "${key}"; the options are asNode and branchId`,
      );
    }
  }
  if (!graph.stateStore) {
    throw new GraphConfigError(`Graph "${graph.name}" has no stateStore; updateState needs one`, {
      graph: graph.name,
    });
  }
  if (update === undefined) {
    throw new TypeError(
      `Graph "${graph.name}": updateState(threadId, update) needs an update object, got ${describeValue(update)}`,
    );
  }
  const store = graph.stateStore;
  const branchId = options.branchId ?? "main";
  if (branchId !== "main" && !(await store.getBranch(threadId, branchId))) {
    throw new UnknownBranchError(`Thread "${threadId}" has no branch "${branchId}"`, {
      threadId,
      branchId,
    });
  }
  const flow = graph.compiled;
  const { journal, loaded } = await ThreadJournal.open(
    store,
    graph.state,
    graph.name,
    threadId,
    branchId,
    newRunId(),
    graph.leaseTtlMs,
    positionsOf(positions, store),
  );
  try {
    const tp = loaded.position;
    const data = await planStateUpdate(
      { name: graph.name, state: graph.state, flow },
      tp,
      update,
      options.asNode ?? null,
      null,
    );
    await journal.stateUpdated(tp.step, data);
    const position: ThreadPosition = { ...tp };
    applyStateUpdated(graph.state, position, tp.step, data);
    position.lastSeq = journal.lastSeq;
    position.lastEventId = journal.lastEventId;
    rememberPosition(positions, store, threadId, branchId, {
      position,
      snapshotSeq: loaded.snapshotSeq,
    });
    return snapshotOf<S>(position);
  } finally {
    await journal.close();
  }
}
