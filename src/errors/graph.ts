/**
 * Errors of a graph's definition and execution: config, execution, step limit, state updates,
 * node time-outs, a missing run context.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** Where a graph error happened; every field is optional. */
export interface GraphErrorLocation extends NodestepErrorOptions {
  /** Name of the graph. */
  graph?: string;
  /** Name of the node. */
  node?: string;
}

/**
 * A graph, node or agent is configured so that it cannot run: an unknown or duplicate node
 * name, a node with no way out, a conditional target that is not a node, two tools with one
 * name, a state field an agent node needs but that is not declared. Raised when the graph is
 * built (`flow`) or, for agent nodes, before the model or tool is called.
 */
export class GraphConfigError extends NodestepError {
  readonly graph: string | undefined;
  readonly node: string | undefined;
  constructor(message: string, options?: GraphErrorLocation) {
    super(message, options);
    this.graph = options?.graph;
    this.node = options?.node;
  }
}

/** A run went wrong while executing: routing to an undeclared target, sub-agents never gathered, a node's own failure. */
export class GraphExecutionError extends NodestepError {
  readonly graph: string | undefined;
  readonly node: string | undefined;
  readonly step: number | undefined;
  constructor(message: string, options?: GraphErrorLocation & { step?: number }) {
    super(message, options);
    this.graph = options?.graph;
    this.node = options?.node;
    this.step = options?.step;
  }
}

/** A run reached `maxSteps` supersteps and still had nodes to run. Nothing past the limit ran. */
export class StepLimitError extends GraphExecutionError {
  /** The superstep limit that was reached. */
  readonly maxSteps: number;
  /** Names of the nodes that would have run next. */
  readonly pending: readonly string[];
  constructor(
    message: string,
    options: GraphErrorLocation & { maxSteps: number; pending: readonly string[] },
  ) {
    super(message, { ...options, step: options.maxSteps });
    this.maxSteps = options.maxSteps;
    this.pending = options.pending;
  }
}

/** An update (or a `Send` payload, or the input) does not fit the state: an unknown field, a wrong type, a misplaced `Replace`. */
export class StateUpdateError extends NodestepError {
  /**
   * Node that wrote the update, or `"__input__"` for the run's input, `"__update__"` for
   * `graph.updateState` without `asNode`, `"__command__"` for a `Command`'s update given as input.
   */
  readonly node: string | undefined;
  /** The state field at fault. */
  readonly field: string | undefined;
  constructor(message: string, options?: NodestepErrorOptions & { node?: string; field?: string }) {
    super(message, options);
    this.node = options?.node;
    this.field = options?.field;
  }
}

/** A node ran longer than its `timeoutMs`. */
export class NodeTimeoutError extends NodestepError {
  readonly node: string;
  /** The limit, in milliseconds. */
  readonly timeoutMs: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & { node: string; timeoutMs: number },
  ) {
    super(message, options);
    this.node = options.node;
    this.timeoutMs = options.timeoutMs;
  }
}

/** A tool or node needed the run's `context` but the run was started without one. */
export class ContextNotProvidedError extends NodestepError {}
