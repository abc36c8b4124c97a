// Node error handlers: a failed node, after its retries, becomes an update or a route.

import { Command, defineState, END, Graph, MemoryStateStore, node, reducer, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  log: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

let calls = 0;
const cached = node(() => ({ log: ["answer from the cache"] }), { name: "cached" });
const fetchPrice = node(
  () => {
    calls++;
    throw new Error("price service unavailable");
  },
  {
    name: "fetchPrice",
    goto: [cached],
    retry: { maxAttempts: 2, initialIntervalMs: 1, jitter: false, retryOn: () => true },
    // After the retries: record what went wrong and go to the fallback.
    onError: (error) =>
      new Command({ update: { log: [`failed: ${error.message}`] }, goto: cached }),
  },
);

const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
  START.to(fetchPrice),
  cached.to(END),
);
const r = await graph.invoke({}, { threadId: "t" });
console.log(r.status, calls, r.state.log.join(" | "));
const commit = (await graph.history("t")).find((e) => e.type === "step_committed")!;
console.log(JSON.stringify((commit.data as { error: unknown }).error));
