// A tool that reads the run's context: the inventory is passed to runAgent as `context`.

import { buildReactAgent, runAgent, ScriptedChat, type ToolContext, tool } from "nodestep";
import { z } from "zod";

interface Inventory {
  stock: Record<string, number>;
}

const checkStock = tool(({ sku }, ctx: ToolContext<Inventory>) => ctx.context.stock[sku] ?? 0, {
  name: "check_stock",
  description: "Return how many items of a product are in stock.",
  input: z.object({ sku: z.string() }),
  output: z.number().int(),
});

const chat = new ScriptedChat([
  { toolCalls: [{ id: "call_1", name: "check_stock", arguments: { sku: "MUG-1" } }] },
  "There are 12 mugs in stock.",
]);
const agent = buildReactAgent(chat, { tools: [checkStock] });

console.log(checkStock.inputSchemaJson());
const answer = await runAgent(agent, "How many mugs are left?", {
  context: { stock: { "MUG-1": 12 } } satisfies Inventory,
});
console.log(answer);
console.log(chat.requests[1]!.messages.at(-1)!.content);
