// Editing a thread's state from outside a node: updateState (with and without asNode), a
// Command as run input, and "edit and branch" (fork, then update the branch).

import {
  Command,
  defineState,
  END,
  Graph,
  MemoryStateStore,
  node,
  reducer,
  START,
  when,
} from "nodestep";
import { z } from "zod";

const State = defineState({
  notes: reducer(z.array(z.string()).default([]), (a: string[], b: string[]) => [...a, ...b]),
  approved: z.boolean().default(false),
});
type S = typeof State.State;

const draft = node(() => ({ notes: ["draft"] }), { name: "draft" });
const send = node(() => ({ notes: ["sent"] }), { name: "send" });
const shelve = node(() => ({ notes: ["shelved"] }), { name: "shelve" });
const graph = new Graph(State, {
  stateStore: new MemoryStateStore(),
  interruptAfter: ["draft"],
}).flow(
  START.to(draft),
  draft.to(when((s: S) => s.approved, send, { otherwise: shelve })),
  send.to(END),
  shelve.to(END),
);

await graph.invoke({}, { threadId: "a" });
console.log("next:", (await graph.getState("a")).next.join(","));
// As if draft had returned it: draft's edges now lead to send.
const edited = await graph.updateState("a", { approved: true }, { asNode: "draft" });
console.log("after updateState asNode:", edited.next.join(","));
console.log("a:", (await graph.invoke(null, { threadId: "a" })).state.notes.join(","));

// Without asNode: the state changes, the next task (shelve) stays.
await graph.invoke({}, { threadId: "b" });
await graph.updateState("b", { notes: ["note by hand"] });
console.log("b:", (await graph.invoke(null, { threadId: "b" })).state.notes.join(","));

// A Command as input: an update and where to go, in one call.
await graph.invoke({}, { threadId: "c" });
const c = await graph.invoke(new Command({ update: { approved: true }, goto: "send" }), {
  threadId: "c",
});
console.log("c:", c.state.notes.join(","), c.state.approved);

// Edit and branch: fork thread a where draft paused, approve nothing there, continue.
const pause = (await graph.history("a")).find((e) => e.type === "run_finished")!;
const branch = await graph.fork("a", { eventId: pause.id });
await graph.updateState("a", { notes: ["second thoughts"] }, { branchId: branch.branchId });
const other = await graph.invoke(null, { threadId: "a", branchId: branch.branchId });
console.log("branch:", other.state.notes.join(","));
console.log("event:", (await graph.history("a", { branchId: branch.branchId })).at(-4)?.type);
