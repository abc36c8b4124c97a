/**
 * Thread operations of a graph: a branch's state (now, or at an event: time travel), its
 * history of events, and forks. `Graph.getState`, `Graph.history` and `Graph.fork` delegate here.
 *
 * @module
 */
import {
  GraphConfigError,
  type InterruptInfo,
  UnknownBranchError,
  UnknownEventError,
} from "../errors/index.js";
import type { StateDefinition } from "../state/define-state.js";
import { copyState } from "../state/state-copy.js";
import type { BranchInfo, StateStore, StoredEvent } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import { type ChildSnapshot, childStates } from "./child-states.js";
import type { CompiledFlow } from "./compile.js";
import { loadPosition } from "./journal.js";
import { checkReadOptions } from "./run-options.js";
import { type PositionCache, positionsOf, rememberPosition } from "./run-setup.js";
import { emptyPosition, foldEvents, statusOn, type ThreadPosition } from "./thread-state.js";

/** What the thread operations read of a graph. */
export interface ThreadGraph {
  readonly name: string;
  /** The compiled flow (read for `subgraphs: true`). */
  readonly compiled?: CompiledFlow;
  readonly state: StateDefinition | null;
  readonly stateStore: StateStore | null;
}

/** A thread's state as `graph.getState` reads it. */
export interface ThreadSnapshot<S> {
  state: S;
  /** The superstep that runs next. */
  step: number;
  /** Nodes of the superstep that runs next; empty when the thread is done. */
  next: string[];
  /** Interrupts the thread is waiting on. */
  interrupts: InterruptInfo[];
  /**
   * Status of the last run, or `null` for an empty thread. On a fork made inside a run (with no
   * run of its own yet) `"interrupted"`, as a stopped run reads: nothing runs there; `next` is set.
   */
  status: ThreadPosition["lastStatus"];
  /** Id of the last event, or `null` for an empty thread. */
  lastEventId: string | null;
  /** The static breakpoint the thread is paused at (`interruptBefore` / `interruptAfter`), or `null`. */
  breakpoint: Breakpoint | null;
  /** With `{ subgraphs: true }`: the child threads of the next superstep's subgraph tasks, by task id. */
  subgraphs?: Record<string, ChildSnapshot>;
}

/** The graph's store. @throws GraphConfigError when it has none (`what` names the operation). */
function storeOf(graph: ThreadGraph, what: string): StateStore {
  if (!graph.stateStore) {
    throw new GraphConfigError(`Graph "${graph.name}" has no stateStore; ${what} needs one`, {
      graph: graph.name,
    });
  }
  return graph.stateStore;
}

/** See `Graph.getState`. */
export async function getThreadState<S>(
  graph: ThreadGraph,
  positions: PositionCache,
  threadId: string,
  options: { branchId?: string; eventId?: string; stateStore?: StateStore; subgraphs?: boolean },
): Promise<ThreadSnapshot<S>> {
  checkReadOptions(graph.name, threadId, options, ["branchId", "eventId"], {
    op: "getState",
    keys: ["branchId", "eventId", "subgraphs"],
    internal: ["stateStore"],
  });
  if (options.subgraphs !== undefined && typeof options.subgraphs !== "boolean") {
    throw new TypeError(
      `Graph "${graph.name}": subgraphs must be a boolean, got ${typeof options.subgraphs}`,
    );
  }
  const store = options.stateStore ?? storeOf(graph, "getState");
  const branchId = options.branchId ?? "main";
  let position: ThreadPosition;
  if (options.eventId !== undefined) {
    const events = await store.read(threadId, branchId);
    const at = events.findIndex((e) => e.id === options.eventId);
    if (at < 0) {
      throw new UnknownEventError(
        `Event "${options.eventId}" is not in the history of thread "${threadId}" (branch "${branchId}")`,
        {
          threadId,
          eventId: options.eventId,
        },
      );
    }
    position = foldEvents(graph.state, emptyPosition(graph.state), events.slice(0, at + 1));
  } else {
    if (branchId !== "main" && !(await store.getBranch(threadId, branchId))) {
      throw new UnknownBranchError(`Thread "${threadId}" has no branch "${branchId}"`, {
        threadId,
        branchId,
      });
    }
    // A read keeps what it folded in the process's cache (it writes nothing to the store): a
    // second read, or a run, of the same branch in this process folds nothing while the
    // branch's last seq is the one folded to (another process's write moves it on).
    const loaded = await loadPosition(
      store,
      graph.state,
      threadId,
      branchId,
      positionsOf(positions, store),
      false,
    );
    if (loaded.position.lastSeq > 0) {
      rememberPosition(positions, store, threadId, branchId, loaded);
    }
    position = loaded.position;
  }
  const snapshot = snapshotOf<S>(position);
  snapshot.status = statusOn(position, branchId);
  if (options.subgraphs === true && graph.compiled) {
    snapshot.subgraphs = await childStates(graph.compiled, store, position, branchId);
  }
  return snapshot;
}

/** A folded position as `getState` shows it (the state is the caller's own copy). */
export function snapshotOf<S>(position: ThreadPosition): ThreadSnapshot<S> {
  return {
    state: copyState(position.state) as S,
    step: position.step,
    next: position.tasks.map((t) => t.name),
    interrupts: position.interrupts,
    status: position.lastStatus,
    lastEventId: position.lastEventId,
    breakpoint: position.breakpoint ?? null,
  };
}

/** See `Graph.history`. */
export async function threadHistory(
  graph: ThreadGraph,
  threadId: string,
  options: { branchId?: string },
): Promise<StoredEvent[]> {
  checkReadOptions(graph.name, threadId, options, ["branchId"], {
    op: "history",
    keys: ["branchId"],
  });
  return storeOf(graph, "history").read(threadId, options.branchId ?? "main");
}

/** See `Graph.fork`. */
export async function forkThread(
  graph: ThreadGraph,
  threadId: string,
  options: { eventId: string; branchId?: string },
): Promise<BranchInfo> {
  if (typeof options?.eventId !== "string" || options.eventId === "") {
    throw new TypeError(
      `Graph "${graph.name}": fork(threadId, { eventId }) needs the id of an event of the thread (see graph.history)`,
    );
  }
  checkReadOptions(graph.name, threadId, options, ["branchId"], {
    op: "fork",
    keys: ["eventId", "branchId"],
  });
  return storeOf(graph, "fork").createBranch(threadId, options.eventId, options.branchId);
}
