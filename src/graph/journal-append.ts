/**
 * The append path of a run's journal (`journal.ts`): events appended in order, behind the
 * branch's lease (`journal-lease.ts`) and as the run's durability says (`journal-writer.ts`),
 * with a single-task superstep's result held back to be written inside its commit.
 *
 * @module
 */
import type { LeaseLostError } from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import type { NewEvent, StateStore } from "../stores/types.js";
import type { WatchedAbort } from "./abort-race.js";
import type { Durability } from "./durability.js";
import type { TaskOutcome, TaskSpec } from "./engine-types.js";
import { JournalLease } from "./journal-lease.js";
import { JournalWriter } from "./journal-writer.js";
import { withParentTask } from "./stable-rewind.js";
import { encodeOutcome } from "./thread-state.js";

/** A finished task's result held back (see {@link JournalAppender.holdResult}). */
export interface HeldResult {
  step: number;
  task: TaskSpec;
  outcome: TaskOutcome;
}

/** Appends a run's events to its branch: the journal's lease, writer and order of events. */
export class JournalAppender {
  #buffer: NewEvent[] = [];
  /** The result of a single-task superstep, written inside its commit (one event instead of two). */
  #inline: HeldResult | null = null;
  #closed = false;
  readonly #lease: JournalLease;
  readonly #writer: JournalWriter;
  /** Fires (with the `LeaseLostError` as its reason) when the run loses its lease. */
  readonly leaseSignal: AbortSignal;
  /** The source of {@link leaseSignal}: the run's race is told by it directly (`abort-race.ts`). */
  readonly leaseAbort: WatchedAbort;
  /**
   * The run that asked this one to stop (busy-thread policy `"interrupt"`), as the store said
   * at the last commit; `null` while none did. The engine stops at the superstep boundary.
   */
  stoppedBy: string | null = null;
  /** A subgraph child run's parent task, kept in its start and end events (`stable-rewind.ts`). */
  parentTask: string | null = null;

  protected constructor(
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
    this.leaseAbort = this.#lease.lostAbort;
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

  /** Start the lease's renewal timer (`sent`: when the lease was taken, see `JournalLease.begin`). */
  protected beginLease(sent: number): void {
    this.#lease.begin(sent);
  }

  /** One event of the run, tagged with its parent task (`stable-rewind.ts`). */
  protected event(
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
      this.flushResult();
    }
    const batch = this.#buffer.length ? [...this.#buffer, ...events] : events;
    this.#buffer = [];
    return this.#writer.write(batch, end);
  }

  /**
   * Write the deferred single-task result as its own pending write. (Taken out first: a result
   * its codecs cannot store is dropped, so that the run's failure can still be written.)
   */
  protected flushResult(): void {
    const inline = this.#inline;
    if (!inline) return;
    this.#inline = null;
    const { step, task, outcome } = inline;
    this.#buffer.push(
      this.event(
        "task_finished",
        step,
        task.id,
        task.name,
        encodeOutcome(this.def, outcome, undefined, task.name),
      ),
    );
  }

  /** Hold `task`'s result back, to be written with superstep `step`'s commit. */
  protected holdResult(step: number, task: TaskSpec, outcome: TaskOutcome): void {
    this.#inline = { step, task, outcome };
  }

  /** Drop the held result when it is task `taskId`'s (it is never written). */
  protected dropResult(taskId: string): void {
    if (this.#inline?.task.id === taskId) this.#inline = null;
  }

  /**
   * Take the held result out when it is the single task (`order`) of superstep `step`, to be
   * written inside its commit; any other held result is written first as its own pending write.
   * @returns the result taken, or `null`.
   */
  protected takeResult(step: number, order: readonly TaskSpec[]): HeldResult | null {
    const inline = this.#inline;
    if (!inline) return null;
    if (inline.step === step && order.length === 1 && order[0]!.id === inline.task.id) {
      this.#inline = null;
      return inline;
    }
    this.flushResult();
    return null;
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
    if (settled !== null) await settled;
    // Also after a lost lease: releasing is a no-op when another owner holds it now. (A
    // rejection ignored in place: no promise and closure of a `.catch` a run.)
    const released = this.store.releaseLease(this.threadId, this.branchId, this.runId);
    try {
      await released;
    } catch {
      // (ignored)
    }
  }
}
