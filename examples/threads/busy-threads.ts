// Busy threads ("double texting"): a second input while a run is going on the thread,
// with onBusy "enqueue", "interrupt" and "rollback" (docs/busy-threads.md).

import {
  defineState,
  END,
  Graph,
  MemoryStateStore,
  node,
  RunStoppedError,
  reducer,
  START,
} from "nodestep";
import { z } from "zod";

const State = defineState({
  notes: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});

// "think" is slow (a model call, say); "answer" writes what the run thought about.
const think = node(
  async () => {
    await new Promise((r) => setTimeout(r, 50));
    return { notes: ["thought"] };
  },
  { name: "think" },
);
const answer = node(() => ({ notes: ["answered"] }), { name: "answer" });
const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
  START.to(think),
  think.to(answer),
  answer.to(END),
);

for (const onBusy of ["enqueue", "interrupt", "rollback"] as const) {
  const threadId = `t-${onBusy}`;
  await graph.invoke({ notes: ["hello"] }, { threadId });
  const first = graph.invoke({ notes: ["first"] }, { threadId }).then(
    () => "completed",
    (e: unknown) => (e instanceof RunStoppedError ? "stopped" : String(e)),
  );
  await new Promise((r) => setTimeout(r, 10)); // the first run is thinking
  const second = await graph.invoke({ notes: ["second"] }, { threadId, onBusy });
  const ended = await first;
  const types = (await graph.history(threadId)).map((e) => e.type);
  console.log(`${onBusy}: first run ${ended}; ${second.state.notes.join(", ")}`);
  console.log(`  ${types.slice(4).join(" ")}`);
}
