/**
 * Test fixture (not part of the API): the graph of the take-over-after-failure test.
 *
 * `a ──▶ boom`: `a` waits 50 ms (so that its stream event reaches Redis well before the run
 * fails), counts its runs in `runs.a` and appends `"a"` to `trail`; `boom` counts its runs in
 * `runs.boom` and throws `Error("boom on purpose")`. Its lease on a thread lasts 1 s.
 */
import { z } from "zod";
import { Graph } from "../../graph/graph.js";
import { node, START } from "../../graph/node.js";
import { END } from "../../graph/routing.js";
import { defineState, reducer } from "../../state/index.js";
import type { StateStore } from "../../stores/types.js";

const State = defineState({
  trail: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

/** How often this process ran each node. */
export const runs = { a: 0, boom: 0 };

/** The fixture's graph on `stateStore`. */
export function buildFailing({ stateStore }: { stateStore: StateStore }) {
  const a = node(
    async () => {
      runs.a++;
      await new Promise((r) => setTimeout(r, 50));
      return { trail: ["a"] };
    },
    { name: "a" },
  );
  const boom = node(
    () => {
      runs.boom++;
      throw new Error("boom on purpose");
    },
    { name: "boom" },
  );
  return new Graph(State, { name: "failing", stateStore, leaseTtlMs: 1_000 }).flow(
    START.to(a),
    a.to(boom),
    boom.to(END),
  );
}
