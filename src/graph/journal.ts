/**
 * The run journal: how a run on a thread reads and appends the event log of a state store.
 *
 * One append per finished task (its pending write), per committed superstep, per pause and
 * per end of a run; a single-task superstep writes its task and its commit together. Appends
 * are serialized and carry the branch's expected last seq (optimistic concurrency); the run
 * holds the branch's lease from start to end, renewed by a timer and from the append path
 * (see `ThreadJournal.append`), so that a run that never gives the event loop a turn keeps it.
 * The run's `durability` (`durability.ts`) says whether an append is awaited (`"sync"`), sent
 * without waiting with what comes meanwhile held for the next one (`"async"`), or held until
 * the run ends (`"exit"`); the run's end is always awaited. How batches reach the store is in
 * `journal-writer.ts`, the lease's renewal and loss in `journal-lease.ts`.
 *
 * Loading a position is in `load-position.ts` (re-exported here).
 *
 * @module
 */
import type { InterruptInfo, LeaseLostError } from "../errors/index.js";
import { StateStoreError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { NewEvent, StateStore } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import { type BusyPolicy, takeLease } from "./busy.js";
import type { Durability } from "./durability.js";
import type { RunJournal, TaskOutcome, TaskResult, TaskSpec } from "./engine-types.js";
import { encodeWaiting, type Waiting } from "./joins.js";
import { JournalLease } from "./journal-lease.js";
import { JournalWriter } from "./journal-writer.js";
import { type CachedPosition, loadPosition } from "./load-position.js";
import { withParentTask } from "./stable-rewind.js";
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
 * A run asks the store for a stop request (busy-thread policies) at a superstep commit when
 * at least this many ms passed since it last asked (so always after a superstep this long).
 * A throttle, not a timer: nothing polls between commits. It applies where the append does
 * not answer the request itself (stores without `appendLeased`, and `"exit"` durability); the
 * request comes from any process, and the store contract has no notification to wait on
 * (docs/busy-threads.md).
 */
export const STOP_CHECK_MS = 25;

/** Appends a run's events to its branch. */
export class ThreadJournal implements RunJournal {
  #buffer: NewEvent[] = [];
  /** The result of a single-task superstep, written inside its commit (one event instead of two). */
  #inline: { step: number; task: TaskSpec; outcome: TaskOutcome } | null = null;
  #closed = false;
  readonly #lease: JournalLease;
  readonly #writer: JournalWriter;
  /** Fires (with the `LeaseLostError` as its reason) when the run loses its lease. */
  readonly leaseSignal: AbortSignal;
  /**
   * The run that asked this one to stop (busy-thread policy `"interrupt"`), as the store said
   * at the last commit; `null` while none did. The engine stops at the superstep boundary.
   */
  stoppedBy: string | null = null;
  /** `performance.now()` when the store was last asked for a stop request. */
  #stopCheckedAt = Number.NEGATIVE_INFINITY;
  /** A subgraph child run's parent task, kept in its start and end events (`stable-rewind.ts`). */
  parentTask: string | null = null;

  private constructor(
    readonly store: StateStore,
    readonly def: StateDefinition | null,
    readonly threadId: string,
    readonly branchId: string,
    readonly runId: string,
    readonly leaseTtlMs: number,
    lastSeq: number,
    lastEventId: string | null,
    readonly durability: Durability,
  ) {
    this.#lease = new JournalLease(this);
    this.leaseSignal = this.#lease.signal;
    this.#writer = new JournalWriter(this.#lease, durability, lastSeq, lastEventId, (by) => {
      this.stoppedBy = by;
    });
  }

  /** The seq of the last event the store acknowledged. */
  get lastSeq(): number {
    return this.#writer.lastSeq;
  }

  /**
   * The id of the run's last event: acknowledged by the store in `"sync"` mode (and in every
   * mode once the run ended); in `"async"` and `"exit"` mode possibly one still held or in
   * flight (the id it is stored under when written).
   */
  get lastEventId(): string | null {
    return this.#writer.lastEventId;
  }

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
      j.#lease.begin(sent);
      return { journal: j, loaded, stopped };
    } catch (e) {
      await store.releaseLease(threadId, branchId, runId).catch(() => {});
      throw e;
    }
  }

  #event(
    type: NewEvent["type"],
    step: number | null,
    taskId: string | null,
    node: string | null,
    data: JsonValue,
  ): NewEvent {
    const tagged = withParentTask(type, data, this.parentTask);
    return { type, runId: this.runId, step, taskId, node, data: tagged };
  }

  /**
   * Append events (after any buffered ones), in order with earlier appends. What they hold is
   * taken now: with no append in flight the store is called at once (a store reads the events
   * before its `append` returns); behind one, or behind a renewal of the lease, they are
   * copied first, so that nothing a node does to its objects afterwards reaches the log.
   *
   * The lease, before each append: when more than half its time to live passed since the last
   * renewal, a renewal is sent (not waited for); when all of it passed (no timer turn renewed
   * it: the run kept the event loop busy), the append waits for a renewal in place, which
   * succeeds when the lease is still this run's in the store, and stops the run with
   * `LeaseLostError`, writing nothing, when another owner took it.
   *
   * In `"async"` and `"exit"` mode (see `durability.ts`) an append that is not the run's `end`
   * resolves without waiting for the store (held, or sent unawaited); `end` sends whatever is
   * held with it and waits. An unawaited append that failed rejects every later one.
   */
  append(events: NewEvent[], end = false): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#lease.check();
    if (this.#lease.lost) return Promise.reject(this.#lease.lost);
    if (this.#writer.deferred) return Promise.reject(this.#writer.deferred);
    if (this.#inline && !(events.length === 1 && events[0]!.type === "step_committed")) {
      // Something else is written before the commit: the result goes first, as a pending write.
      this.#flushInline();
    }
    const batch = this.#buffer.length ? [...this.#buffer, ...events] : events;
    this.#buffer = [];
    return this.#writer.write(batch, end);
  }

  /**
   * Write the deferred single-task result as its own pending write. (Taken out first: a result
   * its codecs cannot store is dropped, so that the run's failure can still be written.)
   */
  #flushInline(): void {
    const inline = this.#inline;
    if (!inline) return;
    this.#inline = null;
    const { step, task, outcome } = inline;
    this.#buffer.push(
      this.#event(
        "task_finished",
        step,
        task.id,
        task.name,
        encodeOutcome(this.def, outcome, undefined, task.name),
      ),
    );
  }

  /**
   * @throws StateStoreError for a resume answer that is `undefined` (JSON would drop it, and a
   *   later load would ask again), or an input a field's codec cannot store.
   */
  runStarted(step: number, data: RunStartedData, base?: Record<string, unknown>): Promise<void> {
    for (const key in data.resume) {
      if (data.resume[key] === undefined) {
        throw new StateStoreError(
          `Cannot store the resume answers: resume.${key} is not JSON (undefined is not JSON (use null))`,
          { field: `resume.${key}`, threadId: this.threadId, branchId: this.branchId },
        );
      }
    }
    return this.append([
      this.#event("run_started", step, null, null, encodeRunStarted(this.def, step, data, base)),
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
      this.#inline = { step, task, outcome };
      return;
    }
    const e = this.#event(
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
    if (this.#inline?.task.id === taskId) this.#inline = null;
    return this.append([
      this.#event("task_cache", step, taskId, node, { cache: {}, discard: true }),
    ]);
  }

  saveCache(step: number, taskId: string, node: string, cache: JsonObject): Promise<void> {
    return this.append([this.#event("task_cache", step, taskId, node, { cache })]);
  }

  /**
   * Commit superstep `step`, whose tasks were `order` (the position's tasks, in order), and
   * record the next superstep's tasks. A single task's deferred result is written inside;
   * `before` is the state at the start of the superstep.
   */
  async stepCommitted(
    step: number,
    order: readonly TaskSpec[],
    next: readonly TaskSpec[],
    before: Record<string, unknown>,
    waiting: Waiting | null = null,
  ): Promise<void> {
    let data: JsonObject = { next: encodeTasks(step + 1, next) };
    // What waits after the superstep (joins heard from, deferred tasks), when anything does.
    if (waiting) Object.assign(data, encodeWaiting(waiting));
    const inline = this.#inline;
    if (inline) {
      if (inline.step === step && order.length === 1 && order[0]!.id === inline.task.id) {
        // Its routes are not written: `next` already holds where they led. (Taken out first:
        // a result its codecs cannot store fails the commit and is not written later.)
        this.#inline = null;
        const { update, error } = inline.outcome;
        data = {
          ...data,
          ...encodeOutcome(
            this.def,
            error ? { update, routes: null, error } : { update, routes: null },
            before,
            inline.task.name,
          ),
        };
      } else this.#flushInline();
    }
    // Asked alongside the commit (not after it), at most every STOP_CHECK_MS: a stop request
    // is seen at this boundary, or (in a run of quick supersteps) within STOP_CHECK_MS.
    const now = performance.now();
    // (A store that appends as the lease's holder answers it with every append.)
    // (In "exit" mode nothing is appended before the end: asked as without appendLeased.)
    const check =
      this.store.stopRequested &&
      (!this.store.appendLeased || this.durability === "exit") &&
      now - this.#stopCheckedAt >= STOP_CHECK_MS;
    if (check) this.#stopCheckedAt = now;
    const asked = check
      ? this.store.stopRequested!(this.threadId, this.branchId, this.runId).catch(
          (): string | null => null,
        )
      : null;
    await this.append([this.#event("step_committed", step, null, null, data)]);
    if (asked) this.stoppedBy = (await asked) ?? this.stoppedBy;
  }

  /**
   * Undo runs (busy-thread policy `"rollback"`): a `rolled_back` event holding the position
   * the fold goes back to (see `rollback.ts`).
   */
  rolledBack(step: number, data: JsonObject): Promise<void> {
    // Written (and awaited) in every mode: the run goes on from the position after it.
    return this.append([this.#event("rolled_back", step, null, null, data)], true);
  }

  /**
   * The run stopped at a superstep boundary because `by` asked (busy-thread policy
   * `"interrupt"`): `run_finished`, status `"interrupted"`, with `stoppedBy`.
   */
  stopped(step: number, by: string): Promise<void> {
    return this.append(
      [
        this.#event("run_finished", step, null, null, {
          status: "interrupted",
          interrupts: [],
          stoppedBy: by,
        }),
      ],
      true,
    );
  }

  async interrupted(
    step: number,
    tasks: readonly TaskSpec[],
    results: Map<string, TaskResult>,
    interrupts: InterruptInfo[],
    breakpoint: Breakpoint | null = null,
  ): Promise<void> {
    const events: NewEvent[] = [];
    for (const t of tasks) {
      const r = results.get(t.id);
      if (r?.kind === "interrupted") {
        events.push(
          this.#event("task_interrupted", step, t.id, t.name, {
            interrupts: r.interrupts,
            cache: r.cache,
          } as unknown as JsonValue),
        );
      }
    }
    events.push(
      this.#event("run_finished", step, null, null, {
        status: "interrupted",
        interrupts: interrupts as unknown as JsonValue,
        // A subgraph's child paused at a static breakpoint (see childBreakpoint).
        ...(breakpoint ? { breakpoint: breakpoint as unknown as JsonValue } : {}),
      }),
    );
    await this.append(events, true);
  }

  /** The run paused at a static breakpoint (`run_finished`, status `"interrupted"`, with the breakpoint). */
  pausedAt(step: number, breakpoint: Breakpoint): Promise<void> {
    return this.append(
      [
        this.#event("run_finished", step, null, null, {
          status: "interrupted",
          interrupts: [],
          breakpoint: breakpoint as unknown as JsonValue,
        }),
      ],
      true,
    );
  }

  /** Record a state update from outside a node (`state_updated`; see `encodeStateUpdated`). */
  stateUpdated(step: number, data: StateUpdatedData): Promise<void> {
    return this.append([
      this.#event(
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
      [this.#event("run_finished", step, null, null, { status: "completed" })],
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
      this.#flushInline();
    } catch {
      // As in failed(): a result its codecs cannot store is dropped.
    }
    const data: JsonObject = { status: "completed", toParent: node, command };
    if (parentTask !== null) data.parentTask = parentTask;
    await this.append([this.#event("run_finished", step, null, null, data)], true);
  }

  /** Record a failure (best effort: a store that is down is not asked twice). */
  async failed(step: number, error: unknown): Promise<void> {
    const e = error as { name?: unknown; message?: unknown };
    try {
      this.#flushInline();
    } catch {
      // A finished result its codecs cannot store is dropped; the task runs again on resume.
    }
    try {
      await this.append(
        [
          this.#event("run_failed", step, null, null, {
            error: { name: String(e?.name ?? "Error"), message: String(e?.message ?? error) },
          }),
        ],
        true,
      );
    } catch {
      // The failure being reported is the one that matters.
    }
  }

  /** The error the run ends with when it lost its lease, or `null` while it holds it. */
  get lost(): LeaseLostError | null {
    return this.#lease.lost;
  }

  /** Stop writing and give the lease back. */
  async close(): Promise<void> {
    this.#closed = true;
    const settled = this.#writer.close();
    this.#lease.stop();
    await settled;
    // Also after a lost lease: releasing is a no-op when another owner holds it now.
    await this.store.releaseLease(this.threadId, this.branchId, this.runId).catch(() => {});
  }
}
