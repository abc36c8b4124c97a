/**
 * What the toolRunner tests share: tools, tool calls, a one-node graph around a runner, and
 * how a failure is caught.
 */

import { expect } from "vitest";
import { z } from "zod";
import { AIMessage, HumanMessage, type Message, type ToolCall } from "../chat/index.js";
import { Graph, type GraphState } from "../graph/graph.js";
import { type Node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { JsonObject } from "../json/index.js";
import type { Middleware } from "../middleware/types.js";
import type { StateDefinition } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import { type ToolErrorPolicy, toolRunner } from "./tool-runner.js";

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

/** A graph of one node: START → node → END. */
export function oneNode<D extends StateDefinition | null>(
  state: D,
  n: ReturnType<typeof toolRunner>,
  options: { name?: string; middleware?: Middleware[] } = {},
): Graph<D> {
  const any = n as unknown as Node<GraphState<D>>;
  return new Graph(state, { name: options.name ?? "g", middleware: options.middleware ?? [] }).flow(
    START.to(any),
    any.to(END),
  );
}

export const runner = (
  tools: Parameters<typeof toolRunner>[1]["tools"],
  toolErrors?: ToolErrorPolicy,
  middleware: Middleware[] = [],
) =>
  oneNode(AgentState, toolRunner("act", { tools, ...(toolErrors ? { toolErrors } : {}) }), {
    middleware,
  });

export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

/** Matches an error of exactly this class and message. */
export function failure(cls: abstract new (...args: never[]) => Error, message: string) {
  return expect.objectContaining({ constructor: cls, message });
}

/** The tool messages a run appended, without ids. */
export const toolMessages = (messages: Message[]) =>
  messages
    .filter((m) => m.type === "tool")
    .map((m) => {
      const { id: _, ...rest } = m;
      return rest;
    });
