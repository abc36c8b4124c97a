import {
  ApprovalMiddleware,
  type ApprovalRequest,
  buildReactAgent,
  HumanMessage,
  MemoryStateStore,
  ScriptedChat,
  tool,
} from "nodestep";
import { z } from "zod";

const refund = tool(({ orderId, amount }) => `refunded ${amount} EUR on ${orderId}`, {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string(), amount: z.number() }),
});

const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "refund", arguments: { orderId: "A-1001", amount: 20 } }] },
  "Done: 20 EUR refunded on A-1001.",
]);

// Before each call of `refund`, the run pauses and waits for a person's answer.
const agent = buildReactAgent(chat, {
  tools: [refund],
  middleware: [ApprovalMiddleware({ tools: ["refund"] })],
  // With a SqliteStateStore the answer may come from another process; there, ScriptedChat's
  // replies must be functions of the request, as in step 3 (its list starts over in each process).
  stateStore: new MemoryStateStore(),
});

const paused = await agent.invoke(
  { messages: [HumanMessage({ content: "Please refund order A-1001." })] },
  { threadId: "ticket-1" },
);
const [ask] = paused.interrupts;
console.log(paused.status, ask!.key, (ask!.value as ApprovalRequest).question);

// Later: answer under the interrupt's key, and the thread goes on from where it paused.
const done = await agent.invoke(null, { threadId: "ticket-1", resume: { [ask!.key]: "yes" } });
console.log(done.status, done.state.finalText);
