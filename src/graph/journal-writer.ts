/**
 * The durability writer: how a running journal's batches of events reach the store, as the
 * run's `durability` (`durability.ts`) says. `"sync"`: each append is awaited. `"async"`: an
 * append is sent without waiting, and what comes while one is in flight is held and sent as
 * one append when it is answered (a failure is kept and rejects the next write; past
 * {@link ASYNC_MAX_HELD_STEPS} held commits a commit waits). `"exit"`: every event is held
 * until the run's end. The run's end is always sent with what is held, and awaited.
 *
 * Appends are serialized and carry the branch's expected last seq (optimistic concurrency);
 * before each one the lease (`journal-lease.ts`) is checked and, when its time ran out,
 * renewed in place.
 *
 * @module
 */
import { LeaseLostError } from "../errors/index.js";
import { type CountedAppend, countedAppendOf } from "../stores/counted-append.js";
import { eventId } from "../stores/internal.js";
import type { NewEvent, StoredEvent } from "../stores/types.js";
import { ASYNC_MAX_HELD_STEPS, type Durability } from "./durability.js";
import { frozenValue } from "./frozen-value.js";
import type { JournalLease } from "./journal-lease.js";

/** A settled promise, shared: what a write that has nothing left to wait for returns. */
const SETTLED: Promise<void> = Promise.resolve();

/** Sends a run's batches of events to its branch, in order, as its durability says. */
export class JournalWriter {
  /** The last append or held send, in order; {@link SETTLED} while nothing was queued. */
  #tail: Promise<unknown> = SETTLED;
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
  /** The seq of the last event the store acknowledged. */
  lastSeq: number;
  /** Whether the store appends as the lease's holder (`appendLeased`). */
  readonly #leased: boolean;
  /** The store's counted append (a `MemoryStateStore`: see `countedAppendOf`), or `null`. */
  readonly #counted: CountedAppend | null;

  /**
   * @param onStopBy told the run that asked this one to stop, when an `appendLeased` answer
   *   names one.
   */
  constructor(
    readonly lease: JournalLease,
    readonly durability: Durability,
    lastSeq: number,
    lastEventId: string | null,
    readonly onStopBy: (by: string) => void,
  ) {
    this.lastSeq = lastSeq;
    this.#headSeq = lastSeq;
    this.#storedEventId = lastEventId;
    const { store } = lease.run;
    this.#leased = store.appendLeased !== undefined;
    this.#counted = this.#leased ? null : countedAppendOf(store);
  }

  /** The error of an unawaited append that failed (`"async"`), or `null`. */
  get deferred(): unknown {
    return this.#deferred;
  }

  /**
   * The id of the run's last event: acknowledged by the store in `"sync"` mode (and in every
   * mode once the run ended); in `"async"` and `"exit"` mode possibly one still held or in
   * flight (the id it is stored under when written).
   */
  get lastEventId(): string | null {
    const { threadId, branchId } = this.lease.run;
    return this.#headSeq === this.lastSeq
      ? this.#storedEventId
      : eventId(threadId, branchId, this.#headSeq);
  }

  /**
   * Write a batch (see `ThreadJournal.append`): in `"async"` and `"exit"` mode a batch that is
   * not the run's `end` resolves without waiting for the store (held, or sent unawaited);
   * `end` sends whatever is held with it and waits.
   */
  write(batch: NewEvent[], end: boolean): Promise<void> {
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
        return SETTLED;
      }
    }
    return this.#send(batch);
  }

  /**
   * Hold events (copies: see `ThreadJournal.append`) instead of sending them: until the run
   * ends (`"exit"`), or (`"async"`) to send them together once the append in flight is
   * answered; past {@link ASYNC_MAX_HELD_STEPS} held commits the caller waits for that send.
   */
  #hold(batch: NewEvent[]): Promise<void> {
    for (const e of batch) {
      this.#held.push(frozenEvent(e));
      if (e.type === "step_committed") this.#heldSteps++;
    }
    if (this.durability === "exit") return SETTLED;
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
    if (this.#heldSteps < ASYNC_MAX_HELD_STEPS) return SETTLED;
    return this.#heldSend.then(() => {
      if (this.#deferred) throw this.#deferred;
    });
  }

  /** Send a batch: at once with no append in flight, else in order behind the ones that are. */
  #send(batch: NewEvent[]): Promise<void> {
    const lease = this.lease;
    // A store that appends as the lease's holder extends the lease with each append: no
    // renewal is needed before one.
    const lapsed = !this.#leased && lease.renewDue();
    if (this.#counted !== null && this.#inFlight === 0 && !lapsed) return this.#appendNow(batch);
    this.#inFlight++;
    let p: Promise<void>;
    if (this.#inFlight === 1 && !lapsed) p = this.#run(batch, false, lapsed);
    else if (this.#inFlight === 1) p = this.#run(batch.map(frozenEvent), false, lapsed);
    else {
      const frozen = batch.map(frozenEvent);
      p = this.#tail.then(() => this.#run(frozen, true, lapsed));
    }
    this.#tail = p.catch(() => {});
    return p;
  }

  /**
   * {@link #send} with nothing in flight and no renewal due, on a store with a counted append
   * (the memory store's, which runs to completion at once): the append made now, its outcome a
   * settled promise (no asynchronous step, as `#run` would take, for an append that is done).
   */
  #appendNow(batch: NewEvent[]): Promise<void> {
    const { threadId, branchId } = this.lease.run;
    try {
      if (this.lease.lost) throw this.lease.lost;
      // An append before this one failed unawaited ("async"): nothing after it is written.
      if (this.#deferred) throw this.#deferred;
      const n = this.#counted!(threadId, branchId, batch, this.lastSeq);
      if (n > 0) {
        this.lastSeq += n;
        this.#storedEventId = eventId(threadId, branchId, this.lastSeq);
      }
      return SETTLED;
    } catch (e) {
      // Not written: the head goes back by what this append held.
      this.#headSeq -= batch.length;
      return Promise.reject(e);
    }
  }

  /**
   * One append of {@link #send} (`queued`: behind others; `lapsed`: the lease's renewal was
   * due when it was sent).
   */
  async #run(b: NewEvent[], queued: boolean, lapsed: boolean): Promise<void> {
    const lease = this.lease;
    const { store, threadId, branchId } = lease.run;
    const leased = this.#leased;
    try {
      // A renewal may have failed (or not come in time) while earlier appends were queued:
      // this one is not sent. (Not queued: checked in `#send`.)
      if (queued) lease.check();
      if (lease.lost) throw lease.lost;
      // An append before this one failed unawaited ("async"): nothing after it is written.
      if (this.#deferred) throw this.#deferred;
      if (!leased && (queued ? lease.renewDue() : lapsed)) await lease.renewInPlace();
      if (lease.lost) throw lease.lost;
      if (!leased && this.#counted) {
        // The memory store's append that answers only how many events it stored.
        const n = await this.#counted(threadId, branchId, b, this.lastSeq);
        if (n > 0) {
          this.lastSeq += n;
          this.#storedEventId = eventId(threadId, branchId, this.lastSeq);
        }
        return;
      }
      const stored = leased
        ? await this.#appendLeased(b)
        : await store.append(threadId, branchId, b, this.lastSeq);
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
  }

  /**
   * One append through `store.appendLeased`: the sequence check, the lease's extension and the
   * stop request in one step. A lease another owner holds now loses it (nothing was written).
   */
  async #appendLeased(b: NewEvent[]): Promise<StoredEvent[]> {
    const lease = this.lease;
    const { store, threadId, branchId, runId, leaseTtlMs } = lease.run;
    const sent = performance.now();
    const res = await store.appendLeased!(threadId, branchId, b, this.lastSeq, {
      owner: runId,
      ttlMs: leaseTtlMs,
    });
    if (!res.held) {
      lease.lose("another writer holds it now", undefined);
      throw (
        lease.lost ??
        new LeaseLostError(
          `Run "${runId}" lost the lease of thread "${threadId}" (branch "${branchId}"): another writer holds it now. Nothing was written.`,
          { threadId, branchId },
        )
      );
    }
    lease.extended(sent);
    if (res.stopBy !== null) this.onStopBy(res.stopBy);
    return res.events;
  }

  /**
   * Write nothing more; resolves when the appends under way settled, or `null` when nothing
   * was ever queued (every append made at once: nothing to wait for).
   */
  close(): Promise<unknown> | null {
    this.#closed = true;
    return this.#tail === SETTLED ? null : this.#tail;
  }
}

function frozenEvent(e: NewEvent): NewEvent {
  return e.data === null || typeof e.data !== "object" ? e : { ...e, data: frozenValue(e.data) };
}
