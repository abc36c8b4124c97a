// A tool fails in the middle of a turn, so the thread stops with a tool call that has no
// result. New input there is refused and the thread is left as it was; continue the tool step
// instead, or fork the thread before the model's request and send the new input on the branch.

import {
  buildReactAgent,
  MemoryStateStore,
  PendingToolCallsError,
  runAgent,
  ScriptedChat,
  tool,
} from "nodestep";
import { z } from "zod";

let paymentsUp = false;
const charge = tool(
  ({ orderId }) => {
    if (!paymentsUp) throw new Error("payment service down");
    return `charged ${orderId}`;
  },
  { name: "charge", description: "Charge an order.", input: z.object({ orderId: z.string() }) },
);

const chat = new ScriptedChat([
  { toolCalls: [{ id: "c1", name: "charge", arguments: { orderId: "A-1" } }] },
  "A-1 is charged.",
  "A-2 has not shipped yet.",
]);
const agent = buildReactAgent(chat, { tools: [charge], stateStore: new MemoryStateStore() });

try {
  await runAgent(agent, "Charge A-1", { threadId: "t" });
} catch (e) {
  console.log("stopped:", (e as Error).message);
}
const events = await agent.history("t");
// The model's request was made in the last run, right after it started.
const beforeRequest = events.findLast((e) => e.type === "run_started")!;

// New input after the stopped turn is refused; nothing is written to the thread.
try {
  await runAgent(agent, "Has A-2 shipped?", { threadId: "t" });
} catch (e) {
  if (!(e instanceof PendingToolCallsError)) throw e;
  const unchanged = (await agent.history("t")).length === events.length;
  console.log("new input:", e.name, "for calls", e.callIds.join(", "), "| unchanged:", unchanged);
}

// 1. Continue: invoke(null) runs the unfinished tool step, then the model answers.
paymentsUp = true;
const done = await agent.invoke(null, { threadId: "t" });
console.log(
  "continued:",
  done.state.messages.map((m) => m.type).join(" "),
  "|",
  done.state.finalText,
);

// 2. Or fork before the model's request and send new input on the branch.
const retry = await agent.fork("t", { eventId: beforeRequest.id });
const answer = await runAgent(agent, "Forget A-1. Has A-2 shipped?", {
  threadId: "t",
  branchId: retry.branchId,
});
const branch = await agent.getState("t", { branchId: retry.branchId });
console.log("forked:", branch.state.messages.map((m) => m.type).join(" "), "|", answer);
