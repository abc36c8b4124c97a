/**
 * Racing a task's promise against the run's signal with one `"abort"` listener per run: a
 * run of many asynchronous tasks (an agent's model and tool calls) would otherwise add and
 * remove a listener on the signal for each (about 2 µs a pair on Node 20, whose
 * `EventTarget` checks every call), a tenth of an agent turn.
 *
 * @module
 */

/** The race of one run; {@link AbortRace.close} removes its listener when the run ends. */
export interface AbortRace {
  /** `p`, or a rejection with `cancelled()` as soon as the signal fires (at once if it has). */
  race<T>(p: Promise<T>): Promise<T>;
  /** Remove the listener (the signal may outlive the run: a caller's, a server's). */
  close(): void;
}

/**
 * Make the race of a run on `signal`; `cancelled` builds the error a fired signal rejects with.
 * When `signal` is `source`'s own, the race is told by `source` itself when it fires, not
 * through an `"abort"` listener on the signal.
 */
export function abortRace(
  signal: AbortSignal,
  cancelled: () => Error,
  source: WatchedAbort | null = null,
): AbortRace {
  return new Race(signal, cancelled, source !== null && source.signal === signal ? source : null);
}

/** What a {@link WatchedAbort} tells when it fires. */
export interface AbortWatcher {
  handleEvent(): void;
}

/**
 * An `AbortController` of nodestep's own (a run's lease: `journal-lease.ts`) that also tells
 * the races on its signal directly when it fires, after the signal's listeners: a race then
 * adds no `"abort"` listener to the signal (on Node 20 `addEventListener` costs about 2.5 % of
 * an agent's turn on the memory store, once per run).
 */
export class WatchedAbort {
  readonly #controller = new AbortController();
  /** The signal; it fires (with the reason given to {@link abort}) as a controller's does. */
  readonly signal: AbortSignal = this.#controller.signal;
  #watchers: AbortWatcher[] | null = null;

  /** Fire the signal with `reason`, then tell the watchers (each once). */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
    const watchers = this.#watchers;
    this.#watchers = null;
    if (watchers) for (const w of watchers) w.handleEvent();
  }

  /** Tell `w` when the signal fires (not when it fired already: check `signal.aborted` first). */
  watch(w: AbortWatcher): void {
    if (this.#watchers === null) this.#watchers = [w];
    else this.#watchers.push(w);
  }

  /** Stop telling `w`. */
  unwatch(w: AbortWatcher): void {
    const watchers = this.#watchers;
    const i = watchers === null ? -1 : watchers.indexOf(w);
    if (i >= 0) watchers!.splice(i, 1);
  }
}

/**
 * The race; it is its own `"abort"` listener (`handleEvent`), not a closure: a named closure
 * per run costs a name set on it in the build (esbuild's keepNames), about a third of a µs.
 */
class Race implements AbortRace {
  readonly #pending = new Set<(e: Error) => void>();
  #listening = false;

  constructor(
    readonly signal: AbortSignal,
    readonly cancelled: () => Error,
    /** The signal's own source, which tells the race itself (no listener), or `null`. */
    readonly source: WatchedAbort | null,
  ) {}

  /** The signal fired: every pending race rejects. */
  handleEvent(): void {
    const e = this.cancelled();
    for (const reject of this.#pending) reject(e);
    this.#pending.clear();
  }

  race<T>(p: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.cancelled());
    if (!this.#listening) {
      if (this.source !== null) this.source.watch(this);
      else this.signal.addEventListener("abort", this, { once: true });
      this.#listening = true;
    }
    const pending = this.#pending;
    return new Promise<T>((resolve, reject) => {
      pending.add(reject);
      p.then(
        (v) => {
          pending.delete(reject);
          resolve(v);
        },
        (e: unknown) => {
          pending.delete(reject);
          reject(e);
        },
      );
    });
  }

  close(): void {
    if (this.#listening) {
      if (this.source !== null) this.source.unwatch(this);
      else this.signal.removeEventListener("abort", this);
    }
    this.#listening = false;
    this.#pending.clear();
  }
}
