/**
 * The run journal: how a run on a thread reads and appends the event log of a state store.
 *
 * One append per finished task (its pending write), per committed superstep, per pause and
 * per end of a run; a single-task superstep writes its task and its commit together. Appends
 * are serialized and carry the branch's expected last seq (optimistic concurrency); the run
 * holds the branch's lease from start to end, renewed by a timer and from the append path
 * (see `JournalAppender.append`), so that a run that never gives the event loop a turn keeps it.
 * The run's `durability` (`durability.ts`) says whether an append is awaited (`"sync"`), sent
 * without waiting with what comes meanwhile held for the next one (`"async"`), or held until
 * the run ends (`"exit"`); the run's end is always awaited. The append path (order, buffer,
 * the held single-task result) is in `journal-append.ts`, how batches reach the store in
 * `journal-writer.ts`, the lease's renewal and loss in `journal-lease.ts`, the data of the
 * events it writes at a run's start and end in `journal-events.ts`, and the throttled
 * stop-request check at a commit in `stop-check.ts`.
 *
 * Loading a position is in `load-position.ts` (re-exported here).
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import { type BusyPolicy, takeLease } from "./busy.js";
import type { Durability } from "./durability.js";
import type { RunJournal, TaskOutcome, TaskResult, TaskSpec } from "./engine-types.js";
import { encodeWaiting, type Waiting } from "./joins.js";
import { JournalAppender } from "./journal-append.js";
import {
  checkResumeAnswers,
  failedData,
  handedToParentData,
  interruptedEvents,
  type MakeEvent,
  pausedData,
  stoppedData,
  withTaskResult,
} from "./journal-events.js";
import { type CachedPosition, loadPosition } from "./load-position.js";
import { StopCheck } from "./stop-check.js";
import {
  encodeOutcome,
  encodeRunStarted,
  encodeStateUpdated,
  encodeTasks,
  type RunStartedData,
  type StateUpdatedData,
} from "./thread-state.js";

export {
  type CachedPosition,
  loadPosition,
  SNAPSHOT_AFTER_EVENTS,
} from "./load-position.js";

/**
 * What a run records on its branch: its start, each task's result or cache, each superstep's
 * commit, its pause or end (appended through {@link JournalAppender}).
 */
export class ThreadJournal extends JournalAppender implements RunJournal {
  /** When the store was last asked for a stop request (`stop-check.ts`). */
  readonly #stopCheck = new StopCheck();

  /**
   * Take the branch's lease (as the busy-thread policy says, see `busy.ts`) and load its position.
   * @throws ThreadBusyError when another run holds the lease (and the policy does not wait, or
   *   the wait timed out); what `takeLease` throws.
   */
  static async open(
    store: StateStore,
    def: StateDefinition | null,
    graphName: string,
    threadId: string,
    branchId: string,
    runId: string,
    leaseTtlMs: number,
    cache: Map<string, CachedPosition> | null,
    busy: { policy: BusyPolicy; timeoutMs: number; signal: AbortSignal | null } = {
      policy: "reject",
      timeoutMs: 0,
      signal: null,
    },
    durability: Durability = "sync",
  ): Promise<{ journal: ThreadJournal; loaded: CachedPosition; stopped: string[] }> {
    const { sent, stopped } = await takeLease({
      store,
      graphName,
      threadId,
      branchId,
      runId,
      leaseTtlMs,
      ...busy,
    });
    try {
      const loaded = await loadPosition(store, def, threadId, branchId, cache);
      const j = new ThreadJournal(
        store,
        def,
        threadId,
        branchId,
        runId,
        leaseTtlMs,
        loaded.position.lastSeq,
        loaded.position.lastEventId,
        durability,
      );
      // The renewal timer; a store that learns of a lost lease at once (PostgreSQL's session)
      // stops the run at once.
      j.beginLease(sent);
      return { journal: j, loaded, stopped };
    } catch (e) {
      await store.releaseLease(threadId, branchId, runId).catch(() => {});
      throw e;
    }
  }

  /**
   * @throws StateStoreError for a resume answer that is `undefined` (JSON would drop it, and a
   *   later load would ask again), or an input a field's codec cannot store.
   */
  runStarted(step: number, data: RunStartedData, base?: Record<string, unknown>): Promise<void> {
    checkResumeAnswers(data.resume, this.threadId, this.branchId);
    return this.append([
      this.event("run_started", step, null, null, encodeRunStarted(this.def, step, data, base)),
    ]);
  }

  taskFinished(
    step: number,
    task: TaskSpec,
    outcome: TaskOutcome,
    defer = false,
  ): Promise<void> | void {
    if (defer) {
      // Written with the commit, later: the engine froze it (see `frozenValue`).
      this.holdResult(step, task, outcome);
      return;
    }
    const e = this.event(
      "task_finished",
      step,
      task.id,
      task.name,
      encodeOutcome(this.def, outcome, undefined, task.name),
    );
    return this.append([e]);
  }

  discardTask(step: number, taskId: string, node: string): Promise<void> {
    // A deferred result of that task was never written: nothing to keep of it.
    this.dropResult(taskId);
    return this.append([
      this.event("task_cache", step, taskId, node, { cache: {}, discard: true }),
    ]);
  }

  saveCache(step: number, taskId: string, node: string, cache: JsonObject): Promise<void> {
    return this.append([this.event("task_cache", step, taskId, node, { cache })]);
  }

  /**
   * Commit superstep `step`, whose tasks were `order` (the position's tasks, in order), and
   * record the next superstep's tasks. A single task's deferred result is written inside;
   * `before` is the state at the start of the superstep.
   */
  stepCommitted(
    step: number,
    order: readonly TaskSpec[],
    next: readonly TaskSpec[],
    before: Record<string, unknown>,
    waiting: Waiting | null = null,
  ): Promise<void> {
    let data: JsonObject = { next: encodeTasks(step + 1, next) };
    // What waits after the superstep (joins heard from, deferred tasks), when anything does.
    if (waiting) Object.assign(data, encodeWaiting(waiting));
    // Its routes are not written: `next` already holds where they led. (Taken out first:
    // a result its codecs cannot store fails the commit and is not written later.)
    const inline = this.takeResult(step, order);
    if (inline) data = withTaskResult(this.def, data, inline.outcome, before, inline.task.name);
    // Asked alongside the commit (not after it), at most every STOP_CHECK_MS: a stop request
    // is seen at this boundary, or (in a run of quick supersteps) within STOP_CHECK_MS.
    const asked = this.#stopCheck.ask(
      this.store,
      this.durability,
      this.threadId,
      this.branchId,
      this.runId,
    );
    const appended = this.append([this.event("step_committed", step, null, null, data)]);
    // (Without a stop request asked, the append's own promise: no async step of this method.)
    return asked ? this.#stopAnswer(appended, asked) : appended;
  }

  /** After the commit's append, the stop request's answer (asked alongside it). */
  async #stopAnswer(appended: Promise<void>, asked: Promise<string | null>): Promise<void> {
    await appended;
    this.stoppedBy = (await asked) ?? this.stoppedBy;
  }

  /**
   * Undo runs (busy-thread policy `"rollback"`): a `rolled_back` event holding the position
   * the fold goes back to (see `rollback.ts`).
   */
  rolledBack(step: number, data: JsonObject): Promise<void> {
    // Written (and awaited) in every mode: the run goes on from the position after it.
    return this.append([this.event("rolled_back", step, null, null, data)], true);
  }

  /**
   * The run stopped at a superstep boundary because `by` asked (busy-thread policy
   * `"interrupt"`): `run_finished`, status `"interrupted"`, with `stoppedBy`.
   */
  stopped(step: number, by: string): Promise<void> {
    return this.append([this.event("run_finished", step, null, null, stoppedData(by))], true);
  }

  async interrupted(
    step: number,
    tasks: readonly TaskSpec[],
    results: Map<string, TaskResult>,
    interrupts: InterruptInfo[],
    breakpoint: Breakpoint | null = null,
  ): Promise<void> {
    const event: MakeEvent = (type, s, taskId, node, data) =>
      this.event(type, s, taskId, node, data);
    await this.append(interruptedEvents(event, step, tasks, results, interrupts, breakpoint), true);
  }

  /** The run paused at a static breakpoint (`run_finished`, status `"interrupted"`, with the breakpoint). */
  pausedAt(step: number, breakpoint: Breakpoint): Promise<void> {
    return this.append(
      [this.event("run_finished", step, null, null, pausedData(breakpoint))],
      true,
    );
  }

  /** Record a state update from outside a node (`state_updated`; see `encodeStateUpdated`). */
  stateUpdated(step: number, data: StateUpdatedData): Promise<void> {
    return this.append([
      this.event(
        "state_updated",
        step,
        null,
        data.asNode,
        encodeStateUpdated(this.def, step, data),
      ),
    ]);
  }

  finished(step: number): Promise<void> {
    return this.append(
      [this.event("run_finished", step, null, null, { status: "completed" })],
      true,
    );
  }

  /**
   * The run ended with a node's `Command.PARENT` (`run_finished`, status `"completed"`, with
   * `toParent`: the node, `command`: its update and goto as `encodeParentCommand` stores them,
   * and `parentTask`: the parent's task it was handed to, when known): its superstep is not
   * applied, and nothing is left to run. The parent's task, run again before it recorded its
   * own result (a crash), applies this stored command instead of running the child again.
   */
  async handedToParent(
    step: number,
    node: string,
    command: JsonObject,
    parentTask: string | null,
  ): Promise<void> {
    try {
      this.flushResult();
    } catch {
      // As in failed(): a result its codecs cannot store is dropped.
    }
    const data = handedToParentData(node, command, parentTask);
    await this.append([this.event("run_finished", step, null, null, data)], true);
  }

  /** Record a failure (best effort: a store that is down is not asked twice). */
  async failed(step: number, error: unknown): Promise<void> {
    try {
      this.flushResult();
    } catch {
      // A finished result its codecs cannot store is dropped; the task runs again on resume.
    }
    try {
      await this.append([this.event("run_failed", step, null, null, failedData(error))], true);
    } catch {
      // The failure being reported is the one that matters.
    }
  }
}
