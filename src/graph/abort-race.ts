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
  const pending = new Set<(e: Error) => void>();
  let listening = false;
  const onAbort = () => {
    const e = cancelled();
    for (const reject of pending) reject(e);
    pending.clear();
  };
  return {
    race<T>(p: Promise<T>): Promise<T> {
      if (signal.aborted) return Promise.reject(cancelled());
      if (!listening) {
        signal.addEventListener("abort", onAbort, { once: true });
        listening = true;
      }
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
    },
    close() {
      if (listening) signal.removeEventListener("abort", onAbort);
      listening = false;
      pending.clear();
    },
  };
}
