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

/** Make the race of a run on `signal`; `cancelled` builds the error a fired signal rejects with. */
export function abortRace(signal: AbortSignal, cancelled: () => Error): AbortRace {
  return new Race(signal, cancelled);
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
      this.signal.addEventListener("abort", this, { once: true });
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
    if (this.#listening) this.signal.removeEventListener("abort", this);
    this.#listening = false;
    this.#pending.clear();
  }
}
