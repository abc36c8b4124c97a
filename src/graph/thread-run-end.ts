/**
 * How a run on a thread ends (`runGraph`, `run-setup.ts`): its last event (`run_finished`
 * as completed, paused, stopped or handed to the parent, or `run_failed`), the position it
 * leaves in the graph's position cache, and the snapshot a long thread keeps now and then.
 *
 * @module
 */
import { RunStoppedError } from "../errors/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { childBreakpoint } from "./breakpoints.js";
import type { StreamMode } from "./context.js";
import type { LoopEnd, RunPosition } from "./engine.js";
import { setWaiting } from "./joins.js";
import type { ThreadJournal } from "./journal.js";
import { type CachedPosition, snapshotAfterRun, snapshotDue } from "./load-position.js";
import { encodeParentCommand, ParentCommand } from "./parent-command.js";
import { type PositionCache, positionsOf, rememberPosition } from "./position-cache.js";
import { emitPauseCheckpoint } from "./stream-modes.js";
import { THREAD_FORMAT, type ThreadPosition } from "./thread-state.js";
import type { StreamEvent } from "./types.js";

/** A run on a thread, as its end needs it. */
export interface ThreadRunEnd {
  readonly graphName: string;
  readonly def: StateDefinition | null;
  readonly store: StateStore;
  readonly positions: PositionCache;
  readonly threadId: string;
  readonly branchId: string;
  readonly runId: string;
  readonly journal: ThreadJournal;
}

/** Forget the cached position of the run's branch: the next load folds the log. */
function forget(run: ThreadRunEnd): void {
  positionsOf(run.positions, run.store).delete(`${run.threadId}\u0000${run.branchId}`);
}

/**
 * Record that the run's loop threw `e`, and return the error the run ends with: the lost
 * lease's when it lost it (whatever its nodes made of the abort), else `e`. A `ParentCommand`
 * (a subgraph child's node returned `Command.PARENT`) is written as the child's hand-off to
 * the parent's task `parentTask`; anything else as `run_failed`.
 */
export async function recordRunError(
  run: ThreadRunEnd,
  step: number,
  e: unknown,
  parentTask: string | null,
): Promise<unknown> {
  const error = run.journal.lost ?? e;
  if (error instanceof ParentCommand) {
    // The child's run ends with its node's Command.PARENT; the subgraph node applies it.
    await run.journal.handedToParent(
      step,
      error.node,
      encodeParentCommand(error.command),
      parentTask,
    );
    forget(run);
  } else await run.journal.failed(step, error);
  return error;
}

/**
 * Write the end of a run whose loop ended with `end` at `pos`, and remember the position it
 * leaves (with a snapshot now and then, unless it paused). `emit` and `modeList` are the
 * run's stream (a pause emits its checkpoint event).
 * @throws RunStoppedError when another run asked for the thread (`end.status` `"stopped"`).
 */
export async function finishThreadRun(
  run: ThreadRunEnd,
  pos: RunPosition,
  end: LoopEnd,
  loaded: CachedPosition,
  originRunId: string,
  emit: ((e: StreamEvent) => void) | null,
  modeList: readonly StreamMode[],
): Promise<void> {
  const { journal, threadId, branchId, runId, store } = run;
  if (end.status === "stopped") {
    // Another run asked for the thread (onBusy "interrupt"): what was committed is kept.
    await journal.stopped(pos.step, end.by);
    forget(run);
    throw new RunStoppedError(
      `Run "${runId}" of graph "${run.graphName}" on thread "${threadId}" (branch "${branchId}") was stopped before superstep ${pos.step} because run "${end.by}" asked for the thread (onBusy "interrupt" or "rollback"); the supersteps it committed stay in the log (a "rollback" undoes them)`,
      { graph: run.graphName, threadId, branchId, runId, stoppedBy: end.by, step: pos.step },
    );
  }
  const folded: ThreadPosition = {
    format: THREAD_FORMAT,
    state: pos.state,
    step: pos.step,
    tasks: pos.tasks,
    known: {},
    caches: {},
    interrupts: [],
    answers: {},
    lastEventId: null,
    lastSeq: 0,
    originRunId,
    lastStatus: end.status,
    runBranchId: branchId,
  };
  setWaiting(folded, pos);
  if (end.status === "interrupted" && end.breakpoint) {
    await journal.pausedAt(pos.step, end.breakpoint);
    // The next load folds the log (what the paused superstep already knew stays as stored).
    forget(run);
    return;
  }
  if (pos.passed != null && pos.passed === pos.step) folded.passed = pos.passed;
  if (end.status === "interrupted") {
    const inner = childBreakpoint(pos.step, pos.tasks, end.results);
    await journal.interrupted(pos.step, pos.tasks, end.results, end.interrupts, inner);
    const opts = { emit, modes: new Set(modeList), threadId, branchId };
    emitPauseCheckpoint(opts, pos.step, pos.state, pos.tasks, end.interrupts, journal.lastEventId);
    folded.breakpoint = inner;
    for (const [id, r] of end.results) {
      if (r.kind === "done") folded.known[id] = { update: r.update, routes: r.routes };
      else folded.caches[id] = r.cache;
    }
    folded.interrupts = end.interrupts;
    folded.answers = pos.answers;
  } else {
    await journal.finished(pos.step);
  }
  folded.lastSeq = journal.lastSeq;
  folded.lastEventId = journal.lastEventId;
  const cached = { position: folded, snapshotSeq: loaded.snapshotSeq };
  // A long thread keeps a snapshot now and then, so that a new process reads little of it.
  // (Asked first: no await unless one is due.)
  if (end.status !== "interrupted" && snapshotDue(folded.lastSeq, cached.snapshotSeq)) {
    cached.snapshotSeq = await snapshotAfterRun(store, run.def, threadId, branchId, cached);
  }
  rememberPosition(run.positions, store, threadId, branchId, cached);
}
