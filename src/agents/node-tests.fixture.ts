/**
 * What the agents tests share (model node, tool runner, ReAct agent): a graph of one node,
 * and how a failure is caught and matched.
 *
 * @module
 */

import { expect } from "vitest";
import { Graph, type GraphState } from "../graph/graph.js";
import { type Node, START } from "../graph/node.js";
import { END } from "../graph/routing.js";
import type { Middleware } from "../middleware/types.js";
import type { StateDefinition } from "../state/define-state.js";

/** A graph of one node, START → node → END, named `name` (default `"g"`). */
export function oneNode<D extends StateDefinition | null>(
  state: D,
  n: Node<Record<string, unknown>>,
  options: { name?: string; middleware?: Middleware[] } = {},
): Graph<D> {
  const any = n as unknown as Node<GraphState<D>>;
  return new Graph(state, { name: options.name ?? "g", middleware: options.middleware ?? [] }).flow(
    START.to(any),
    any.to(END),
  );
}

/** What a promise rejected with. @throws Error when it resolved. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

/** What a function threw. @throws Error when it returned. */
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
