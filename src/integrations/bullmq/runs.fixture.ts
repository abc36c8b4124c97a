/**
 * Test fixture (not part of the API): the graph the run-worker tests serve and run, as a
 * `nodestep serve` / `nodestep worker` target (`runs.fixture.ts#buildSteps`).
 *
 * `a ──▶ b ──▶ c ──▶ answer`: `a`, `b` and `c` each wait `NODESTEP_TEST_STEP_MS` ms (default
 * 100), emit `{ at }` and append their name to `trail` (a list with an appending reducer, so
 * that a superstep applied twice would show); `answer` sets `answer` to `"<topic>: a b c"`. A
 * topic `"hold"` makes `b` wait until the run is cancelled. Its lease on a thread lasts
 * `NODESTEP_TEST_LEASE_MS` (default 1,000) ms, so that a dead worker's thread is free soon.
 */
import { z } from "zod";
import { Graph } from "../../graph/graph.js";
import { node, START } from "../../graph/node.js";
import { END } from "../../graph/routing.js";
import { defineState, reducer } from "../../state/index.js";
import type { StateStore } from "../../stores/types.js";

const State = defineState({
  topic: z.string().default(""),
  trail: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  answer: z.string().nullable().default(null),
});
type S = typeof State.State;

const stepMs = () => Number(process.env.NODESTEP_TEST_STEP_MS ?? 100);

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function step(name: string) {
  return node(
    async (s: S, ctx) => {
      await wait(name === "b" && s.topic === "hold" ? 600_000 : stepMs(), ctx.signal);
      ctx.emit({ at: name });
      return { trail: [name] };
    },
    { name },
  );
}

/** The fixture's graph on `stateStore`. */
export function buildSteps({ stateStore }: { stateStore: StateStore }) {
  const a = step("a");
  const b = step("b");
  const c = step("c");
  const answer = node((s: S) => ({ answer: `${s.topic}: ${s.trail.join(" ")}` }), {
    name: "answer",
  });
  return new Graph(State, {
    name: "steps",
    stateStore,
    leaseTtlMs: Number(process.env.NODESTEP_TEST_LEASE_MS ?? 1_000),
  }).flow(START.to(a), a.to(b), b.to(c), c.to(answer), answer.to(END));
}
