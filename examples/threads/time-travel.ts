// Time travel: read a thread's history, fork it at an event, and run on the branch.

import { defineState, END, Graph, MemoryStateStore, node, reducer, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  notes: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
});
type S = typeof State.State;

const echo = node((s: S) => ({ notes: [`seen ${s.notes.length}`] }), { name: "echo" });
const graph = new Graph(State, { stateStore: new MemoryStateStore() }).flow(
  START.to(echo),
  echo.to(END),
);

await graph.invoke({ notes: ["first"] }, { threadId: "t" });
await graph.invoke({ notes: ["second"] }, { threadId: "t" });

const history = await graph.history("t");
console.log(history.map((e) => e.type).join(" "));

const afterFirstRun = history.find((e) => e.type === "run_finished")!;
const branch = await graph.fork("t", { eventId: afterFirstRun.id });
const other = await graph.invoke(
  { notes: ["another second"] },
  { threadId: "t", branchId: branch.branchId },
);
console.log("branch:", other.state.notes.join(", "));
console.log("main:  ", (await graph.getState("t")).state.notes.join(", "));
