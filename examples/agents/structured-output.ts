// Structured output: the final answer is parsed into a zod schema and stored in finalOutput.

import { buildReactAgent, HumanMessage, ScriptedChat } from "nodestep";
import { z } from "zod";

const Ticket = z
  .object({ title: z.string(), priority: z.number().int() })
  .meta({ title: "Ticket" });

const agent = buildReactAgent(new ScriptedChat(['{"title": "Checkout is down", "priority": 1}']), {
  tools: [],
  outputSchema: Ticket,
});

const result = await agent.invoke({ messages: [HumanMessage({ content: "Checkout is down!" })] });
console.log(result.state.finalOutput);
