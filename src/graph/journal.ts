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
 * the run ends (`"exit"`); the run's end is always awaited.
 *
 * Loading a position is in `load-position.ts` (re-exported here).
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import { LeaseLostError, StateStoreError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { StateDefinition } from "../state/define-state.js";
import { eventId } from "../stores/internal.js";
import type { NewEvent, StateStore, StoredEvent } from "../stores/types.js";
import type { Breakpoint } from "./breakpoints.js";
import { type BusyPolicy, takeLease } from "./busy.js";
import { ASYNC_MAX_HELD_STEPS, type Durability } from "./durability.js";
import type { RunJournal, TaskOutcome, TaskResult, TaskSpec } from "./engine-types.js";
import { frozenValue } from "./frozen-value.js";
import { encodeWaiting, type Waiting } from "./joins.js";
import { type CachedPosition, loadPosition } from "./load-position.js";
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
 */
export const STOP_CHECK_MS = 25;

/** Appends a run's events to its branch. */
export class ThreadJournal implements RunJournal {
  #tail: Promise<unknown> = Promise.resolve();
  #buffer: NewEvent[] = [];
  /** The result of a single-task superstep, written inside its commit (one event instead of two). */
  #inline: { step: number; task: TaskSpec; outcome: TaskOutcome } | null = null;
  #closed = false;
  /** Appends started and not yet settled. */
  #inFlight = 0;
  /** Events held (`"async"`: behind the append in flight; `"exit"`: until the run ends), frozen. */
  #held: NewEvent[] = [];
  /** `step_committed` events among {@link #held}. */
  #heldSteps = 0;
  /** `"async"`: the send of {@link #held} after the append in flight, when one is scheduled. */
  #heldSend: Promise<void> | null = null;
  /** `"async"`: the error of an append nobody awaited; every later write rejects with it. */
  #deferred: unknown = null;
  /** The seq the last event appended or held will have (ahead of {@link lastSeq} while some are unacknowledged). */
  #headSeq: number;
  /** The id of the last acknowledged event (see {@link lastEventId}). */
  #storedEventId: string | null;
  #renewal: ReturnType<typeof setInterval> | null = null;
  /** The renewal of the lease in flight, or `null`. */
  #renewing: Promise<void> | null = null;
  /** `performance.now()` when the renewal in flight was sent. */
  #renewSent = 0;
  /** Set when a renewal of the lease failed or was refused: nothing more is written. */
  #lost: LeaseLostError | null = null;
  /** Resolves when the lease is lost (ends a wait for a renewal that never answers). */
  #onLost: () => void = () => {};
  /** Removes the store's lease-lost listener of this run, or `null`. */
  #unlisten: (() => void) | null = null;
  readonly #lostNow = new Promise<void>((resolve) => {
    this.#onLost = resolve;
  });
  /**
   * `performance.now()` when the last acquire or renewal that succeeded was sent: the lease
   * lasts at least `leaseTtlMs` from then (the store counts from when it got the request).
   */
  #heldSince = performance.now();
  readonly #lostController = new AbortController();
  /** Fires (with the `LeaseLostError` as its reason) when the run loses its lease. */
  readonly leaseSignal: AbortSignal = this.#lostController.signal;
  /** The seq of the last event the store acknowledged. */
  lastSeq: number;
  /**
   * The run that asked this one to stop (busy-thread policy `"interrupt"`), as the store said
   * at the last commit; `null` while none did. The engine stops at the superstep boundary.
   */
  stoppedBy: string | null = null;
  /** `performance.now()` when the store was last asked for a stop request. */
  #stopCheckedAt = Number.NEGATIVE_INFINITY;

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
    this.lastSeq = lastSeq;
    this.#headSeq = lastSeq;
    this.#storedEventId = lastEventId;
  }

  /**
   * The id of the run's last event: acknowledged by the store in `"sync"` mode (and in every
   * mode once the run ended); in `"async"` and `"exit"` mode possibly one still held or in
   * flight (the id it is stored under when written).
   */
  get lastEventId(): string | null {
    return this.#headSeq === this.lastSeq
      ? this.#storedEventId
      : eventId(this.threadId, this.branchId, this.#headSeq);
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
      j.#heldSince = sent;
      j.#startRenewal();
      // A store that learns of a lost lease at once (PostgreSQL's session) stops the run at once.
      j.#unlisten =
        store.onLeaseLost?.((t, b, owner) => {
          if (t === threadId && b === branchId && owner === runId)
            j.#loseLease("the store's session that held it ended", undefined);
        }) ?? null;
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
    return { type, runId: this.runId, step, taskId, node, data };
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
    this.#checkLease();
    if (this.#lost) return Promise.reject(this.#lost);
    if (this.#deferred) return Promise.reject(this.#deferred);
    if (this.#inline && !(events.length === 1 && events[0]!.type === "step_committed")) {
      // Something else is written before the commit: the result goes first, as a pending write.
      this.#flushInline();
    }
    let batch = this.#buffer.length ? [...this.#buffer, ...events] : events;
    this.#buffer = [];
    this.#headSeq += batch.length;
    if (this.durability !== "sync") {
      const mode = this.durability;
      if (!end && (mode === "exit" || this.#inFlight > 0 || this.#held.length > 0))
        return this.#hold(batch);
      if (this.#held.length > 0) {
        // The run's end (or, "async", an append with nothing in flight): the held events first.
        batch = [...this.#held, ...batch.map(frozenEvent)];
        this.#held = [];
        this.#heldSteps = 0;
      }
      if (mode === "async" && !end) {
        // Sent now, not awaited: a failure fails the run at its next write.
        this.#send(batch).catch((e: unknown) => {
          this.#deferred ??= e;
        });
        return Promise.resolve();
      }
    }
    return this.#send(batch);
  }

  /**
   * Hold events (copies: see {@link append}) instead of sending them: until the run ends
   * (`"exit"`), or (`"async"`) to send them together once the append in flight is answered;
   * past {@link ASYNC_MAX_HELD_STEPS} held commits the caller waits for that send.
   */
  #hold(batch: NewEvent[]): Promise<void> {
    for (const e of batch) {
      this.#held.push(frozenEvent(e));
      if (e.type === "step_committed") this.#heldSteps++;
    }
    if (this.durability === "exit") return Promise.resolve();
    if (!this.#heldSend) {
      const send = this.#tail.then(() => {
        this.#heldSend = null;
        const b = this.#held;
        this.#held = [];
        this.#heldSteps = 0;
        if (b.length === 0 || this.#deferred || this.#closed) return;
        return this.#send(b);
      });
      this.#heldSend = send.catch((e: unknown) => {
        this.#deferred ??= e;
      });
      this.#tail = this.#heldSend;
    }
    if (this.#heldSteps < ASYNC_MAX_HELD_STEPS) return Promise.resolve();
    return this.#heldSend.then(() => {
      if (this.#deferred) throw this.#deferred;
    });
  }

  /** Send a batch: at once with no append in flight, else in order behind the ones that are. */
  #send(batch: NewEvent[]): Promise<void> {
    // A store that appends as the lease's holder extends the lease with each append: no
    // renewal is needed before one.
    const leased = this.store.appendLeased !== undefined;
    const lapsed = !leased && this.#renewDue();
    const run = async (b: NewEvent[], queued: boolean) => {
      try {
        // A renewal may have failed (or not come in time) while earlier appends were queued:
        // this one is not sent. (Not queued: checked just above.)
        if (queued) this.#checkLease();
        if (this.#lost) throw this.#lost;
        // An append before this one failed unawaited ("async"): nothing after it is written.
        if (this.#deferred) throw this.#deferred;
        if (!leased && (queued ? this.#renewDue() : lapsed)) await this.#renewInPlace();
        if (this.#lost) throw this.#lost;
        const stored = leased
          ? await this.#appendLeased(b)
          : await this.store.append(this.threadId, this.branchId, b, this.lastSeq);
        const last = stored[stored.length - 1];
        if (last) {
          this.lastSeq = last.seq;
          this.#storedEventId = last.id;
        }
      } catch (e) {
        // Not written: the head goes back by what this append held.
        this.#headSeq -= b.length;
        throw e;
      } finally {
        this.#inFlight--;
      }
    };
    this.#inFlight++;
    let p: Promise<void>;
    if (this.#inFlight === 1 && !lapsed) p = run(batch, false);
    else if (this.#inFlight === 1) p = run(batch.map(frozenEvent), false);
    else {
      const frozen = batch.map(frozenEvent);
      p = this.#tail.then(() => run(frozen, true));
    }
    this.#tail = p.catch(() => {});
    return p;
  }

  /**
   * One append through `store.appendLeased`: the sequence check, the lease's extension and the
   * stop request in one step. A lease another owner holds now loses it (nothing was written).
   */
  async #appendLeased(b: NewEvent[]): Promise<StoredEvent[]> {
    const sent = performance.now();
    const res = await this.store.appendLeased!(this.threadId, this.branchId, b, this.lastSeq, {
      owner: this.runId,
      ttlMs: this.leaseTtlMs,
    });
    if (!res.held) {
      this.#loseLease("another writer holds it now", undefined);
      throw (
        this.#lost ??
        new LeaseLostError(
          `Run "${this.runId}" lost the lease of thread "${this.threadId}" (branch "${this.branchId}"): another writer holds it now. Nothing was written.`,
          { threadId: this.threadId, branchId: this.branchId },
        )
      );
    }
    if (!this.#lost && sent > this.#heldSince) this.#heldSince = sent;
    if (res.stopBy !== null) this.stoppedBy = res.stopBy;
    return res.events;
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
    return this.#lost;
  }

  /**
   * Lose the lease (see {@link #loseLease}) when the store knows it is gone, or when a renewal
   * sent a whole time to live ago is still unanswered and the lease's time ran out (a store
   * that hangs: another writer may hold it now). A lease whose time ran out with no renewal
   * in flight (a busy process sent none) is not lost: the next append renews it in place.
   */
  #checkLease(): void {
    if (this.#closed || this.#lost) return;
    if (this.store.leaseLost?.(this.threadId, this.branchId, this.runId)) {
      this.#loseLease("the store's session that held it ended", undefined);
      return;
    }
    if (this.#renewing === null) return;
    const now = performance.now();
    if (now - this.#renewSent >= this.leaseTtlMs && now - this.#heldSince >= this.leaseTtlMs) {
      this.#loseLease(
        `its time to live of ${this.leaseTtlMs} ms passed with no renewal answered`,
        undefined,
      );
    }
  }

  /**
   * Whether an append must renew the lease first: its whole time to live passed since the
   * last renewal answered. Past half of it, a renewal is sent without waiting (a long run
   * with no timer turn keeps its lease).
   */
  #renewDue(): boolean {
    const since = performance.now() - this.#heldSince;
    if (since >= this.leaseTtlMs) return true;
    if (since >= this.leaseTtlMs / 2 && this.#renewing === null) void this.#renew();
    return false;
  }

  /**
   * Renew a lease whose time ran out, before writing: wait for a renewal (the one in flight,
   * then a new one when that one was sent before the time ran out), or for the lease's loss.
   */
  async #renewInPlace(): Promise<void> {
    for (let i = 0; i < 2 && !this.#lost && this.#renewDue(); i++)
      await Promise.race([this.#renew(), this.#lostNow]);
  }

  /**
   * Renew the lease (`renewLease`, or `acquireLease` for a store without it), or join the
   * renewal in flight. An answer `false` or an error loses the lease; settles either way.
   */
  #renew(): Promise<void> {
    if (this.#renewing) return this.#renewing;
    const sent = performance.now();
    this.#renewSent = sent;
    const { store, threadId, branchId, runId, leaseTtlMs } = this;
    let done = false;
    const renewal = (async () => {
      try {
        const held = store.renewLease
          ? await store.renewLease(threadId, branchId, runId, leaseTtlMs)
          : await store.acquireLease(threadId, branchId, runId, leaseTtlMs);
        if (!held) this.#loseLease("another writer holds it now", undefined);
        else if (!this.#lost) this.#heldSince = sent;
      } catch (e) {
        this.#loseLease(`renewing it failed: ${(e as Error)?.message ?? String(e)}`, e);
      } finally {
        done = true;
        this.#renewing = null;
      }
    })();
    // (A store that threw at once settled it already: nothing is in flight then.)
    if (!done) this.#renewing = renewal;
    return renewal;
  }

  /**
   * Renew the lease every third of its time to live, so a long step (a slow tool) keeps it. A
   * renewal that throws or answers `false`, or none answered within the time to live (see
   * {@link #checkLease}, also run before each append), means another writer may be admitted:
   * the journal writes nothing more (every later append rejects with `LeaseLostError`) and
   * {@link leaseSignal} fires.
   */
  #startRenewal(): void {
    this.#renewal = setInterval(
      () => {
        this.#checkLease();
        if (this.#closed || this.#lost || this.#renewing) return;
        void this.#renew();
      },
      Math.max(10, Math.floor(this.leaseTtlMs / 3)),
    );
    this.#renewal.unref?.();
  }

  #loseLease(why: string, cause: unknown): void {
    if (this.#closed || this.#lost) return;
    this.#lost = new LeaseLostError(
      `Run "${this.runId}" lost the lease of thread "${this.threadId}" (branch "${this.branchId}"): ${why}. It stopped writing; the thread is as its last stored event says.`,
      { threadId: this.threadId, branchId: this.branchId, cause },
    );
    if (this.#renewal) clearInterval(this.#renewal);
    this.#unlisten?.();
    this.#onLost();
    this.#lostController.abort(this.#lost);
  }

  /** Stop writing and give the lease back. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#renewal) clearInterval(this.#renewal);
    this.#unlisten?.();
    await this.#tail;
    // Also after a lost lease: releasing is a no-op when another owner holds it now.
    await this.store.releaseLease(this.threadId, this.branchId, this.runId).catch(() => {});
  }
}

function frozenEvent(e: NewEvent): NewEvent {
  return e.data === null || typeof e.data !== "object" ? e : { ...e, data: frozenValue(e.data) };
}
