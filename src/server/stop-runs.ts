/**
 * `stopRuns`: what a server does with its runs before it closes (`nodestep serve` on Ctrl-C).
 *
 * @module
 */
import type { Hono } from "hono";
import type { RunRegistry } from "./run-registry.js";

const registries = new WeakMap<Hono, { registry: RunRegistry; queued: boolean }>();

/**
 * Stop the runs of a server made by `createServer` before it closes (what `nodestep
 * serve` does on Ctrl-C): waits up to `drainMs` for the runs going on in this process to end,
 * then cancels the others (each stops at once; the supersteps it committed stay in the
 * thread) and waits up to `cancelWaitMs` for them to stop. A server with a `runQueue` runs
 * nothing itself: its runs go on on the workers, and this returns at once.
 *
 * @returns how many runs ended by themselves and how many were cancelled.
 * @throws TypeError for an app that `createServer` did not make.
 */
export async function stopRuns(
  app: Hono,
  options: { drainMs?: number; cancelWaitMs?: number } = {},
): Promise<{ ended: number; cancelled: number }> {
  const entry = registries.get(app);
  if (!entry) throw new TypeError("stopRuns: this app was not made by createServer");
  if (entry.queued) return { ended: 0, cancelled: 0 };
  const going = entry.registry.running();
  const untilAllEnd = async (deadline: number) => {
    for (;;) {
      const left = going.filter((r) => !r.finished);
      if (left.length === 0 || Date.now() >= deadline) return left;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.race(left.map((r) => r.changed())),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        }),
      ]);
      clearTimeout(timer);
    }
  };
  const left = await untilAllEnd(Date.now() + (options.drainMs ?? 10_000));
  for (const r of left) r.controller.abort();
  await untilAllEnd(Date.now() + (options.cancelWaitMs ?? 5_000));
  return { ended: going.length - left.length, cancelled: left.length };
}

/** Remember the registry of an app made by `createServer`, for {@link stopRuns}. */
export function registerRuns(app: Hono, registry: RunRegistry, queued: boolean): void {
  registries.set(app, { registry, queued });
}
