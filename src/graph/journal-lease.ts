/**
 * A running journal's hold on its branch's lease (one writer a branch): renewed by a timer
 * every third of its time to live and, when the timer got no turn, from the append path
 * (`journal-writer.ts`); lost when a renewal fails, is refused or goes unanswered for a whole
 * time to live, or when the store says its session ended. A lost lease stops the run's writes
 * (every later append rejects with `LeaseLostError`) and fires {@link JournalLease.signal}.
 *
 * @module
 */
import { LeaseLostError } from "../errors/index.js";
import type { StateStore } from "../stores/types.js";
import { WatchedAbort } from "./abort-race.js";

/** The run a lease is held for. */
export interface LeaseHolder {
  readonly store: StateStore;
  readonly threadId: string;
  readonly branchId: string;
  readonly runId: string;
  readonly leaseTtlMs: number;
}

/** The lease of a run's branch, from the journal's opening to its close. */
export class JournalLease {
  #closed = false;
  #renewal: ReturnType<typeof setInterval> | null = null;
  /** The renewal of the lease in flight, or `null`. */
  #renewing: Promise<void> | null = null;
  /** `performance.now()` when the renewal in flight was sent. */
  #renewSent = 0;
  /** Set when a renewal of the lease failed or was refused: nothing more is written. */
  #lost: LeaseLostError | null = null;
  /** Resolves {@link #lostNow} when the lease is lost, once a wait made it. */
  #onLost: (() => void) | null = null;
  /** Removes the store's lease-lost listener of this run, or `null`. */
  #unlisten: (() => void) | null = null;
  /**
   * Resolves when the lease is lost (ends a wait for a renewal that never answers); made by
   * the first wait ({@link #whenLost}), not for every run.
   */
  #lostNow: Promise<void> | null = null;
  /**
   * `performance.now()` when the last acquire or renewal that succeeded was sent: the lease
   * lasts at least `leaseTtlMs` from then (the store counts from when it got the request).
   */
  #heldSince = performance.now();
  /** Fired (with the `LeaseLostError` as its reason) when the run loses its lease. */
  readonly lostAbort = new WatchedAbort();
  /** Fires (with the `LeaseLostError` as its reason) when the run loses its lease. */
  readonly signal: AbortSignal = this.lostAbort.signal;

  constructor(readonly run: LeaseHolder) {}

  /** The error the run ends with when it lost its lease, or `null` while it holds it. */
  get lost(): LeaseLostError | null {
    return this.#lost;
  }

  /**
   * Start holding the lease acquired by a request sent at `sent` (`performance.now()`): the
   * renewal timer, and the store's lease-lost listener (a store that learns of a lost lease at
   * once, PostgreSQL's session, stops the run at once).
   */
  begin(sent: number): void {
    this.#heldSince = sent;
    this.#startRenewal();
    const { store, threadId, branchId, runId } = this.run;
    this.#unlisten =
      store.onLeaseLost?.((t, b, owner) => {
        if (t === threadId && b === branchId && owner === runId)
          this.lose("the store's session that held it ended", undefined);
      }) ?? null;
  }

  /** An append that extended the lease (`appendLeased`) was sent at `sent` and succeeded. */
  extended(sent: number): void {
    if (!this.#lost && sent > this.#heldSince) this.#heldSince = sent;
  }

  /**
   * Lose the lease (see {@link lose}) when the store knows it is gone, or when a renewal
   * sent a whole time to live ago is still unanswered and the lease's time ran out (a store
   * that hangs: another writer may hold it now). A lease whose time ran out with no renewal
   * in flight (a busy process sent none) is not lost: the next append renews it in place.
   */
  check(): void {
    if (this.#closed || this.#lost) return;
    const { store, threadId, branchId, runId, leaseTtlMs } = this.run;
    if (store.leaseLost?.(threadId, branchId, runId)) {
      this.lose("the store's session that held it ended", undefined);
      return;
    }
    if (this.#renewing === null) return;
    const now = performance.now();
    if (now - this.#renewSent >= leaseTtlMs && now - this.#heldSince >= leaseTtlMs) {
      this.lose(`its time to live of ${leaseTtlMs} ms passed with no renewal answered`, undefined);
    }
  }

  /**
   * Whether an append must renew the lease first: its whole time to live passed since the
   * last renewal answered. Past half of it, a renewal is sent without waiting (a long run
   * with no timer turn keeps its lease).
   */
  renewDue(): boolean {
    const since = performance.now() - this.#heldSince;
    if (since >= this.run.leaseTtlMs) return true;
    if (since >= this.run.leaseTtlMs / 2 && this.#renewing === null) void this.#renew();
    return false;
  }

  /**
   * Renew a lease whose time ran out, before writing: wait for a renewal (the one in flight,
   * then a new one when that one was sent before the time ran out), or for the lease's loss.
   */
  async renewInPlace(): Promise<void> {
    for (let i = 0; i < 2 && !this.#lost && this.renewDue(); i++)
      await Promise.race([this.#renew(), this.#whenLost()]);
  }

  /** A promise that resolves when the lease is lost (at once when it is). */
  #whenLost(): Promise<void> {
    if (this.#lost) return Promise.resolve();
    this.#lostNow ??= new Promise<void>((resolve) => {
      this.#onLost = resolve;
    });
    return this.#lostNow;
  }

  /**
   * Renew the lease (`renewLease`, or `acquireLease` for a store without it), or join the
   * renewal in flight. An answer `false` or an error loses the lease; settles either way.
   */
  #renew(): Promise<void> {
    if (this.#renewing) return this.#renewing;
    const sent = performance.now();
    this.#renewSent = sent;
    const { store, threadId, branchId, runId, leaseTtlMs } = this.run;
    let done = false;
    const renewal = (async () => {
      try {
        const held = store.renewLease
          ? await store.renewLease(threadId, branchId, runId, leaseTtlMs)
          : await store.acquireLease(threadId, branchId, runId, leaseTtlMs);
        if (!held) this.lose("another writer holds it now", undefined);
        else if (!this.#lost) this.#heldSince = sent;
      } catch (e) {
        this.lose(`renewing it failed: ${(e as Error)?.message ?? String(e)}`, e);
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
   * {@link check}, also run before each append), means another writer may be admitted:
   * the journal writes nothing more (every later append rejects with `LeaseLostError`) and
   * {@link signal} fires.
   */
  #startRenewal(): void {
    this.#renewal = setInterval(
      () => {
        this.check();
        if (this.#closed || this.#lost || this.#renewing) return;
        void this.#renew();
      },
      Math.max(10, Math.floor(this.run.leaseTtlMs / 3)),
    );
    this.#renewal.unref?.();
  }

  /** The lease is gone (`why` says how): nothing more is written, {@link signal} fires. */
  lose(why: string, cause: unknown): void {
    if (this.#closed || this.#lost) return;
    const { runId, threadId, branchId } = this.run;
    this.#lost = new LeaseLostError(
      `Run "${runId}" lost the lease of thread "${threadId}" (branch "${branchId}"): ${why}. It stopped writing; the thread is as its last stored event says.`,
      { threadId, branchId, cause },
    );
    if (this.#renewal) clearInterval(this.#renewal);
    this.#unlisten?.();
    this.#onLost?.();
    this.lostAbort.abort(this.#lost);
  }

  /** Stop renewing and listening (the journal closes; it releases the lease). */
  stop(): void {
    this.#closed = true;
    if (this.#renewal) clearInterval(this.#renewal);
    this.#unlisten?.();
  }
}
