/**
 * Interpreting a node's return value: an update object, its state changed in place, a
 * `Command`, a `Send` or an array of them, END, or nothing, turned into a prepared update and
 * the routes it takes (checked against the node's `goto` list).
 *
 * @module
 */

import { GraphExecutionError, StateUpdateError } from "../errors/index.js";
import { isPlainObject } from "../json/index.js";
import {
  claimOwned,
  describeValue,
  type PreparedUpdate,
  preparePayload,
  prepareUpdate,
} from "../state/define-state.js";
import { sameOneLevel } from "../state/state-copy.js";
import { type CompiledNode, END_NAME } from "./compile.js";
import type { DoneResult, EngineGraph, StepRun, TaskRoutes, TaskSpec } from "./engine-types.js";
import { childOrigin, noParentError } from "./parent-command.js";
import { Command, isEnd, Send } from "./routing.js";

/** Turn a node's return value into a prepared update and routes. */
export function interpret(
  run: StepRun,
  cn: CompiledNode,
  t: TaskSpec,
  input: Record<string, unknown>,
  ret: unknown,
): DoneResult {
  const { graph, step } = run;
  if (ret === undefined || ret === null) return { kind: "done", update: null, routes: null };
  if (isEnd(ret))
    return {
      kind: "done",
      update: null,
      routes: checkGoto(graph, cn, [ret], step, "a returned END"),
    };
  if (ret instanceof Command) {
    if (ret.graph === Command.PARENT) {
      // The child's run ends with it; the subgraph node applies it in the parent.
      if (!run.opts.subgraph) throw noParentError(graph.name, cn.name, step);
      return { kind: "done", update: null, routes: [], toParent: ret };
    }
    if (ret.resume !== null) {
      throw new GraphExecutionError(
        `Node "${cn.name}" returned a Command with resume; resume answers interrupts when a Command is the input of a run (graph.invoke(new Command({ resume }), { threadId })), not from a node`,
        { graph: graph.name, node: cn.name, step },
      );
    }
    const origin = childOrigin(ret);
    if (origin && ret.update !== null) checkParentFields(graph, origin, ret.update);
    const update = ret.update === null ? null : prepare(graph, cn, ret.update);
    const routes =
      ret.goto === null
        ? null
        : checkGoto(
            graph,
            cn,
            Array.isArray(ret.goto) ? ret.goto : [ret.goto],
            step,
            "Command.goto",
            origin,
          );
    return { kind: "done", update, routes };
  }
  if (ret instanceof Send)
    return {
      kind: "done",
      update: null,
      routes: checkGoto(graph, cn, [ret], step, "a returned Send"),
    };
  if (Array.isArray(ret)) {
    if (ret.length > 0 && ret.every((x) => x instanceof Send)) {
      return {
        kind: "done",
        update: null,
        routes: checkGoto(graph, cn, ret, step, "returned Sends"),
      };
    }
    throw new StateUpdateError(
      `Node "${cn.name}" returned an array; a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing`,
      { node: cn.name },
    );
  }
  if (ret === input) {
    // The state it received, changed in place: each changed field is written as it is.
    const state = run.pos.state;
    const payload = t.payload;
    const received = (key: string): unknown =>
      payload !== null && Object.hasOwn(payload, key) ? payload[key] : state[key];
    for (const key in state) {
      if (!Object.hasOwn(input, key)) {
        throw new StateUpdateError(
          `Node "${cn.name}" returned its state without field "${key}"; a node cannot remove a state field (set it to null, or to its default)`,
          { node: cn.name, field: key },
        );
      }
    }
    const diff: Record<string, unknown> = {};
    let any = false;
    for (const key in input) {
      const value = input[key];
      if (!sameOneLevel(value, received(key))) {
        diff[key] = { $nodestep: "replace", value };
        any = true;
      }
    }
    return { kind: "done", update: any ? prepare(graph, cn, diff) : null, routes: null };
  }
  if (isPlainObject(ret)) {
    const update = prepare(graph, cn, ret);
    return { kind: "done", update, routes: null, owned: claimOwned(update) };
  }
  throw new StateUpdateError(
    `Node "${cn.name}" returned ${describeValue(ret)}; a node returns an update object, its state changed in place, a Command, a Send or an array of Sends, END, or nothing`,
    { node: cn.name },
  );
}

function prepare(graph: EngineGraph, cn: CompiledNode, update: unknown): PreparedUpdate | null {
  const p = prepareUpdate(graph.state, update, cn.name);
  for (const _ in p) return p;
  return null;
}

function checkGoto(
  graph: EngineGraph,
  cn: CompiledNode,
  targets: readonly unknown[],
  step: number,
  how: string,
  origin?: { node: string; graphName: string },
): TaskRoutes {
  const routes: NonNullable<TaskRoutes> = [];
  for (const t of targets) {
    let name: string;
    let payload: Record<string, unknown> | null = null;
    if (t instanceof Send) {
      name = nameOf(t.node);
      payload = preparePayload(graph.state, t.payload, name);
    } else name = nameOf(t);
    if (origin) {
      // A child's Command.PARENT: any node of this (the parent's) flow, or END.
      if (name !== END_NAME && !graph.flow.nodes.has(name)) {
        throw new GraphExecutionError(
          `Node "${origin.node}" of graph "${origin.graphName}" routed its parent graph "${graph.name}" to "${name}" (Command.PARENT), which is not a node of the parent; its nodes: ${[...graph.flow.nodes.keys()].join(", ")}`,
          { graph: graph.name, node: cn.name, step },
        );
      }
    } else if (!cn.goto?.has(name)) {
      const shown = name === END_NAME ? "END" : `"${name}"`;
      throw new GraphExecutionError(
        `Node "${cn.name}" routed to ${shown} through ${how}, but ${shown} is not in its goto list${cn.goto ? ` (${[...cn.goto].map((g) => (g === END_NAME ? "END" : g)).join(", ")})` : ""}; declare it with node(fn, { goto: [...] })`,
        { graph: graph.name, node: cn.name, step },
      );
    }
    if (name === END_NAME) continue;
    routes.push({ name, payload: payload ?? (t instanceof Send ? {} : null) });
  }
  return routes;
}

/** Refuse a child's `Command.PARENT` update with a field the parent's state does not have. */
function checkParentFields(
  graph: EngineGraph,
  origin: { node: string; graphName: string },
  update: Record<string, unknown>,
): void {
  const def = graph.state;
  if (def === null) return;
  for (const key of Object.keys(update)) {
    if (update[key] !== undefined && !def.fields.has(key)) {
      throw new StateUpdateError(
        `Node "${origin.node}" of graph "${origin.graphName}" sent its parent graph "${graph.name}" field "${key}" (Command.PARENT), which is not a field of the parent's state; its fields: ${[...def.fields.keys()].join(", ")}`,
        { node: origin.node, field: key },
      );
    }
  }
}

function nameOf(t: unknown): string {
  if (isEnd(t)) return END_NAME;
  if (typeof t === "string") return t;
  if (typeof t === "object" && t !== null && (t as { kind?: unknown }).kind === "node")
    return (t as { name: string }).name;
  return `<${describeValue(t)}>`;
}
