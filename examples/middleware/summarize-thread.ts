/**
 * A long support thread kept short by SummarizationMiddleware: past 20 tokens the older turns
 * become one summary (written by a second, "small" model), a tool call stays with its result,
 * a fork from before the summary still has every message, and a failed summary changes nothing.
 *
 * Run: node --import tsx examples/middleware/summarize-thread.ts
 */
import {
  buildReactAgent,
  HumanMessage,
  MemoryStateStore,
  type Message,
  ScriptedChat,
  SummarizationMiddleware,
  tool,
} from "nodestep";
import { z } from "zod";

const lookup = tool(({ orderId }) => `${orderId} shipped`, {
  name: "lookup",
  description: "Look an order up.",
  input: z.object({ orderId: z.string() }),
});
const chat = new ScriptedChat([
  { toolCalls: [{ id: "c1", name: "lookup", arguments: { orderId: "A-1" } }] },
  "A-1 has shipped.",
  "Yes.",
  "Anything else?",
]);
const small = new ScriptedChat(
  ["The user asked about order A-1; it has shipped.", new Error("overloaded")],
  {
    model: "small",
  },
);
const agent = buildReactAgent(chat, {
  tools: [lookup],
  stateStore: new MemoryStateStore(),
  middleware: [
    SummarizationMiddleware({ model: small, trigger: { tokens: 20 }, keep: { tokens: 6 } }),
  ],
});
const show = (messages: readonly Message[]) =>
  messages.map((m) => `  ${m.type}: ${JSON.stringify(m.content)}`).join("\n");
const ask = (content: string, threadId: string, branchId?: string) =>
  agent.invoke(
    { messages: [HumanMessage({ content })] },
    branchId === undefined ? { threadId } : { threadId, branchId },
  );

await ask("Where is order A-1?", "t1");
const second = await ask("Sure?", "t1");
console.log("after the summary:");
console.log(show(second.state.messages));
console.log("the small model was asked:");
console.log(`  ${JSON.stringify(small.requests[0]?.messages[1]?.content)}`);

// The summary is one step's update in the log: fork from the event before it.
const events = await agent.history("t1");
const step = events.findIndex(
  (e) => e.type === "step_committed" && JSON.stringify(e.data).includes('"summary:'),
);
const before = events[step - 1]!;
const fork = await agent.fork("t1", { eventId: before.id, branchId: "before" });
const forked = await agent.getState("t1", { branchId: fork.branchId });
console.log(`the fork before it holds ${forked.state.messages.length} messages:`);
console.log(show(forked.state.messages));

// The next summary fails ("overloaded"): the history stays as it was, the agent answers.
const third = await ask("Thanks, and when does it arrive?", "t1");
console.log(
  `after a failed summary: ${third.state.messages.length} messages, answer ${JSON.stringify(third.state.finalText)}`,
);
