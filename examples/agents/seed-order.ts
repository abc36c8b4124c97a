// The seed example: a ready-made agent answers a question about an order with one tool call.

import { buildReactAgent, runAgent, ScriptedChat, tool } from "nodestep";
import { z } from "zod";

const getOrderStatus = tool(({ orderId }) => (orderId === "A-1001" ? "shipped" : "unknown"), {
  name: "get_order_status",
  description: "Look up the shipping status of an order.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "get_order_status", arguments: { orderId: "A-1001" } }] },
  "Order A-1001 has shipped.",
]);

const agent = buildReactAgent(chat, {
  tools: [getOrderStatus],
  systemPrompt: "You answer questions about orders.",
});

console.log(await runAgent(agent, "Where is order A-1001?"));
console.log(chat.requests.length, "model calls");
console.log(chat.requests.at(-1)!.messages.at(-1)!.content);
