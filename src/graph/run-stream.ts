/**
 * A run as an async iterable of its events (`Graph.stream`): the run's events are queued as
 * they happen, a pause ends the `"updates"` events with its `__interrupt__`, and leaving the
 * loop early cancels the run.
 *
 * @module
 */
import { type InterruptInfo, RunCancelledError } from "../errors/index.js";
import type { Breakpoint } from "./breakpoints.js";
import type { StreamMode } from "./context.js";
import { EventQueue } from "./queue.js";
import type {
  RunOptions,
  RunResult,
  StreamEvent,
  StreamEventFields,
  StreamOptions,
} from "./types.js";

/** Start a run: `emit` receives the events of `modes`. */
export type StartRun = (
  options: RunOptions,
  emit: (e: StreamEvent) => void,
  modes: readonly StreamMode[],
) => Promise<RunResult<unknown>>;

/**
 * The events of a run of graph `graphName`, started (by `start`) when the loop begins;
 * `return()` (leaving the loop early) aborts the run with `RunCancelledError` and waits for it.
 * `E` is the event type the caller promises (the engine builds each event for its mode).
 * @throws (from the loop) whatever the run throws.
 */
export function streamRun<E>(
  graphName: string,
  options: StreamOptions,
  modes: readonly StreamMode[],
  start: StartRun,
): AsyncIterable<E> {
  return {
    [Symbol.asyncIterator]: () => {
      const queue = new EventQueue<StreamEvent>();
      const controller = new AbortController();
      const signal = options.signal
        ? AbortSignal.any([options.signal, controller.signal])
        : controller.signal;
      let finished = false;
      const done = start({ ...options, signal }, queue.push, modes).then(
        (result) => {
          finished = true;
          if (result.status === "interrupted" && modes.includes("updates")) {
            queue.push({
              mode: "updates",
              node: null,
              step: -1,
              taskId: null,
              data: result.breakpoint
                ? { __interrupt__: result.interrupts, __breakpoint__: result.breakpoint }
                : { __interrupt__: result.interrupts },
            });
          }
          queue.close();
        },
        (e) => {
          finished = true;
          queue.fail(e);
        },
      );
      return {
        // The engine builds each event for its mode: data is the state for "values", etc.
        next: () => queue.next() as Promise<IteratorResult<E>>,
        return: async () => {
          if (!finished) {
            controller.abort(
              new RunCancelledError(
                `The stream of graph "${graphName}" was closed before the run ended`,
                { graph: graphName },
              ),
            );
            await done.catch(() => {});
          }
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/**
 * The event an `"updates"` stream of a paused run ends with: `node` `null`, `data` the
 * pending interrupts under `__interrupt__` (`[]` at a static breakpoint, which is then under
 * `__breakpoint__`).
 */
export type InterruptEvent = StreamEventFields & {
  mode: "updates";
  node: null;
  data: { __interrupt__: InterruptInfo[]; __breakpoint__?: Breakpoint };
};

/**
 * Whether a stream event is the one a paused run's `"updates"` stream ends with; narrows
 * `data` to `{ __interrupt__: InterruptInfo[]; __breakpoint__?: Breakpoint }`.
 * @example
 * ```ts
 * for await (const e of graph.stream(input, { threadId: "t", modes: ["updates"] }))
 *   if (isInterruptEvent(e)) console.log(e.data.__interrupt__.map((i) => i.key));
 * ```
 */
export function isInterruptEvent(
  e: Pick<StreamEvent, "mode" | "node" | "data">,
): e is InterruptEvent {
  return (
    e.mode === "updates" &&
    e.node === null &&
    typeof e.data === "object" &&
    e.data !== null &&
    Array.isArray((e.data as { __interrupt__?: unknown }).__interrupt__)
  );
}
