/**
 * What the toolRunner tests share: tools, tool calls, a one-node graph around a runner, and
 * the agents tests' helpers (node-tests.fixture.ts), re-exported.
 */

import { z } from "zod";
import { AIMessage, HumanMessage, type Message, type ToolCall } from "../chat/index.js";
import type { JsonObject } from "../json/index.js";
import type { Middleware } from "../middleware/types.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { oneNode } from "./node-tests.fixture.js";
import { type ToolErrorPolicy, toolRunner } from "./tool-runner.js";

export { failure, oneNode, rejection, thrown } from "./node-tests.fixture.js";

export class LookupError extends Error {
  override name = "LookupError";
}

export const lookupOrder = tool(
  ({ orderId }): string => {
    throw new LookupError(`no order ${orderId}`);
  },
  {
    name: "lookup_order",
    description: "Find an order by id.",
    input: z.object({ orderId: z.string() }),
  },
);
export const getStatus = tool(({ orderId }) => (orderId === "A-1" ? "shipped" : "unknown"), {
  name: "get_status",
  description: "Shipping status of an order.",
  input: z.object({ orderId: z.string() }),
  output: z.string(),
});

export const call = (id: string, name: string, args: JsonObject = {}): ToolCall => ({
  id,
  name,
  arguments: args,
  argumentsError: null,
});

/** The state after a model turn that asked for `calls`. */
export const pending = (...calls: ToolCall[]) => ({
  messages: [HumanMessage({ content: "q" }), AIMessage({ toolCalls: calls })],
  toolCalls: calls,
});

export const runner = (
  tools: Parameters<typeof toolRunner>[1]["tools"],
  toolErrors?: ToolErrorPolicy,
  middleware: Middleware[] = [],
) =>
  oneNode(AgentState, toolRunner("act", { tools, ...(toolErrors ? { toolErrors } : {}) }), {
    middleware,
  });

/** The tool messages a run appended, without ids. */
export const toolMessages = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool")
    .map((m) => {
      const { id: _, ...rest } = m;
      return rest;
    });
