/**
 * What the modelNode tests share: tools, a one-node graph around a model node, and how a
 * failure is caught.
 */

import { expect } from "vitest";
import { z } from "zod";
import { type ChatRequest, HumanMessage } from "../chat/index.js";
import { Graph, type GraphState } from "../graph/graph.js";
import { type Node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { Middleware } from "../middleware/types.js";
import type { StateDefinition } from "../state/define-state.js";
import { tool } from "../tools/tool.js";
import { AgentState } from "./agent-state.js";
import type { modelNode } from "./model-node.js";

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

/** A graph of one node: START → node → END. */
export function oneNode<D extends StateDefinition | null>(
  state: D,
  n: ReturnType<typeof modelNode>,
  name: string,
): Graph<D> {
  const any = n as unknown as Node<GraphState<D>>;
  return new Graph(state, { name }).flow(START.to(any), any.to(END));
}

/** A one-node graph around a model node, on AgentState unless told otherwise. */
export function single(
  think: ReturnType<typeof modelNode>,
  options: { middleware?: Middleware[] } = {},
): Graph<typeof AgentState> {
  const n = think as unknown as Node<typeof AgentState.State>;
  return new Graph(AgentState, { middleware: options.middleware ?? [] }).flow(
    START.to(n),
    n.to(END),
  );
}

/** What a promise rejected with. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

/** What a function threw. */
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

export const ask = (content: string) => ({ messages: [HumanMessage({ content })] });

/** The messages as the model saw them, without ids. */
export const seen = (request: ChatRequest) =>
  request.messages.map((m) => ({ type: m.type, content: m.content }));
