/**
 * What the modelNode tests share: tools, a one-node graph around a model node, and the
 * agents tests' helpers (node-tests.fixture.ts), re-exported.
 */

import { z } from "zod";
import { type ChatRequest, HumanMessage } from "../chat/index.js";
import type { Graph } from "../graph/graph.js";
import type { Middleware } from "../middleware/types.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import type { modelNode } from "./model-node.js";
import { oneNode } from "./node-tests.fixture.js";

export { failure, oneNode, rejection, thrown } from "./node-tests.fixture.js";

export const lookup = tool(({ orderId }) => `order ${orderId}`, {
  name: "lookup_order",
  description: "Find an order by id.",
  input: z.object({ orderId: z.string() }),
});
export const stock = tool(({ sku }) => sku.length, {
  name: "check_stock",
  description: "Return how many items are in stock.",
  input: z.object({ sku: z.string() }),
});

/** A one-node graph around a model node, on AgentState, named "graph" (the default name). */
export function single(
  think: ReturnType<typeof modelNode>,
  options: { middleware?: Middleware[] } = {},
): Graph<typeof AgentState> {
  return oneNode(AgentState, think, { name: "graph", ...options });
}

export const ask = (content: string) => ({ messages: [HumanMessage({ content })] });

/** The messages as the model saw them, without ids. */
export const seen = (request: ChatRequest) =>
  request.messages.map((m) => ({ type: m.type, content: m.content }));
