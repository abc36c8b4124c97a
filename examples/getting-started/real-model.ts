// examples/getting-started/agent.ts on a real model: only the `chat` line differs.
import { buildReactAgent, runAgent, tool } from "nodestep";
import { chatModel } from "nodestep/models";
import { z } from "zod";

const getOrderStatus = tool(({ orderId }) => (orderId === "A-1001" ? "shipped" : "unknown"), {
  name: "get_order_status",
  description: "Look up the shipping status of an order.",
  input: z.object({ orderId: z.string() }),
});

const chat = await chatModel("openai:gpt-4o-mini"); // npm install openai; reads OPENAI_API_KEY

const agent = buildReactAgent(chat, {
  tools: [getOrderStatus],
  systemPrompt: "You answer questions about orders.",
});

console.log(await runAgent(agent, "Where is order A-1001?"));
