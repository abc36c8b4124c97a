import { buildReactAgent, runAgent, ScriptedChat, tool } from "nodestep";
import { z } from "zod";

// A tool is a typed function: zod checks the model's arguments before it runs.
const getOrderStatus = tool(({ orderId }) => (orderId === "A-1001" ? "shipped" : "unknown"), {
  name: "get_order_status",
  description: "Look up the shipping status of an order.",
  input: z.object({ orderId: z.string() }),
});

// A scripted model: no network, no key. It answers from this list, in order.
const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "get_order_status", arguments: { orderId: "A-1001" } }] },
  "Order A-1001 has shipped.",
]);

const agent = buildReactAgent(chat, {
  tools: [getOrderStatus],
  systemPrompt: "You answer questions about orders.",
});

console.log(await runAgent(agent, "Where is order A-1001?"));
