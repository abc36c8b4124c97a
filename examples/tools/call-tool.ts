// Tools outside an agent: tool(), the schema the model sees, callTool with a context and
// middleware, validation errors, and the ToolLimitMiddleware budget.

import {
  callTool,
  type JsonObject,
  type Middleware,
  ToolContext,
  ToolDeniedError,
  ToolLimitMiddleware,
  tool,
  toolResultContent,
  ValidationError,
} from "nodestep";
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

console.log(checkStock.inputSchemaJson());

// A middleware that upper-cases a string `sku` before every tool call (returning nothing keeps the arguments).
const upperSku: Middleware = {
  name: "upper-sku",
  beforeTool: (args: JsonObject) =>
    typeof args.sku === "string" ? { ...args, sku: args.sku.toUpperCase() } : undefined,
};
const limit = ToolLimitMiddleware({ maxToolCalls: 2 });
const ctx = ToolContext.empty<Inventory>({
  context: { stock: { "MUG-1": 12 } },
  middleware: [limit, upperSku],
});

const result = await callTool(checkStock, { sku: "mug-1" }, ctx);
console.log(result.value, JSON.stringify(result.arguments), toolResultContent(result.value));

// Invalid arguments: a ValidationError (the budget was checked first, so this call counts).
try {
  await callTool(checkStock, { sku: 42 }, ctx);
} catch (e) {
  if (e instanceof ValidationError) console.log(e.message);
}

// The third call is over the budget of 2.
try {
  await callTool(checkStock, { sku: "mug-1" }, ctx);
} catch (e) {
  if (e instanceof ToolDeniedError) console.log(`denied: ${e.reason}`);
}
