/**
 * Nodes and edges.
 *
 * @module
 */
import type { NodeContext } from "./context.js";
import type { ErrorHandler } from "./error-handler.js";
import type { JoinSource } from "./joins.js";
import { checkNodeName } from "./names.js";
import type { CachePolicy, RetryPolicy } from "./policies.js";
import { resolveRetry } from "./policies.js";
import type { AnyNode, Command, EdgeTarget, EndSentinel, Send } from "./routing.js";

/**
 * What a node may return: a partial update, the state it received changed in place, a
 * {@link Command}, a {@link Send} or an array of them, {@link END}, or nothing.
 */
export type NodeReturn<S> =
  | NodeUpdate<S>
  | Command<S>
  | Send
  | ReadonlyArray<Send>
  | EndSentinel
  | undefined
  | null
  | void;

/**
 * An update a node returns: some of the state's fields. The values are checked at run time
 * against their fields (a reducer's update, `Replace(...)`), so only the keys are typed here:
 * an object with none of the state's fields is a type error (`{ cout: 1 }` for `count`).
 */
export type NodeUpdate<S> = { [K in keyof S & string]?: unknown };

/** A node function: the state and the node's context in, a {@link NodeReturn} out (sync or async). */
export type NodeHandler<S, C = unknown> = (
  state: S,
  ctx: NodeContext<C>,
) => NodeReturn<S> | Promise<NodeReturn<S>>;

/** An edge from a node (or `START`, or a {@link join} of nodes) to its targets; made by `.to()`. */
export interface Edge {
  readonly kind: "edge";
  readonly from: AnyNode | StartSentinel | JoinSource;
  readonly to: EdgeTarget;
}

/** The start of the graph: `START.to(first)` names the nodes of the first superstep. */
export interface StartSentinel {
  readonly kind: "start";
  readonly name: "__start__";
  /** An edge from the start to `target`. */
  to(target: EdgeTarget): Edge;
}

/** The start of the graph. */
export const START: StartSentinel = Object.freeze({
  kind: "start" as const,
  name: "__start__" as const,
  to(target: EdgeTarget): Edge {
    return { kind: "edge", from: START, to: target };
  },
});

/** Options of {@link node}. */
export interface NodeOptions<_S> {
  /** Node name; defaults to the function's name. Anonymous functions need one. It matches `NODE_NAME_PATTERN`: 1 to 64 letters, digits, `_`, `-` and `.` (not first). */
  name?: string;
  /** Import path `module#export` of the node, for `graph.toSpec()`. */
  ref?: string;
  /** Milliseconds before the node fails with `NodeTimeoutError`. A synchronous node fails only when it returns. */
  timeoutMs?: number;
  /** Every target reached through `Command.goto`, `Send` or a returned `END`. Listed nodes join the flow; a name refers to the flow's node of that name. Routing elsewhere raises `GraphExecutionError`. */
  goto?: ReadonlyArray<AnyNode | string | EndSentinel>;
  /** Retry the node when it fails; default the graph's `retry` (none). */
  retry?: RetryPolicy;
  /** Cache the node's result by its input; entries live in the graph's `nodeCache`. */
  cache?: CachePolicy;
  /**
   * Turn the node's failure (after its retries) into what it would have returned: an update,
   * a `Command`, nothing. Default the graph's `onError` (none). Never called for interrupts or
   * a cancelled run. See docs/error-handlers.md.
   */
  onError?: ErrorHandler<_S>;
  /**
   * Defer the node (LangGraph's `defer: true`): when it is scheduled while other tasks are
   * scheduled too, it waits (once, however often it is scheduled meanwhile) and runs in the
   * first superstep that would otherwise have nothing to run. For map-reduce finalizers over
   * branches of different lengths. Default `false`. See docs/joins.md.
   */
  defer?: boolean;
}

/** A graph step: a function plus its name and options. Made by {@link node}. */
export interface Node<S = Record<string, unknown>> {
  readonly kind: "node";
  readonly name: string;
  readonly ref: string | null;
  readonly timeoutMs: number | null;
  readonly goto: ReadonlyArray<AnyNode | string | EndSentinel> | null;
  /** Its retry policy, or `null`. */
  readonly retry: RetryPolicy | null;
  /** Its cache policy, or `null`. */
  readonly cache: CachePolicy | null;
  /** Its error handler, or `null`. */
  readonly onError: ErrorHandler<S> | null;
  /** Whether the node is deferred (see {@link NodeOptions.defer}). */
  readonly defer: boolean;
  /** The wrapped function. */
  handler(state: S, ctx: NodeContext): NodeReturn<S> | Promise<NodeReturn<S>>;
  /** An edge from this node to `target`: a node, a name, `END`, `when(...)`, or a list (fan-out). */
  to(target: EdgeTarget): Edge;
}

/**
 * Turn a function into a graph node.
 *
 * @param fn - `(state, ctx) => update | state | Command | Send | Send[] | END | undefined`, sync or async.
 * @param options - `name`, `ref`, `timeoutMs`, `goto`, `retry`, `cache`, `onError`, `defer` (see {@link NodeOptions}).
 * @throws GraphConfigError (its `node` the name) if the name is empty, reserved or does not
 *   match `NODE_NAME_PATTERN` (1 to 64 letters, digits, `_`, `-`, `.`; see `names.ts`).
 * @throws TypeError if `fn` is not a function, the name is missing (an anonymous function without `name`), `timeoutMs` is not a positive number, `goto` is not a non-empty list of nodes, node names and `END`, or `defer` is not a boolean.
 * @example
 * ```ts
 * const greet = node((state: { name: string }) => ({ greeting: `Hello, ${state.name}` }), { name: "greet" });
 * ```
 */
export function node<S = Record<string, unknown>, C = unknown>(
  fn: NodeHandler<S, C>,
  options: NodeOptions<S> = {},
): Node<S> {
  if (typeof fn !== "function")
    throw new TypeError(`node(fn): fn must be a function, got ${fn === null ? "null" : typeof fn}`);
  const name = checkNodeName(
    options.name !== undefined ? options.name : fn.name,
    options.name !== undefined,
  );
  const timeoutMs = options.timeoutMs ?? null;
  if (
    timeoutMs !== null &&
    !(typeof timeoutMs === "number" && timeoutMs > 0 && Number.isFinite(timeoutMs))
  ) {
    throw new TypeError(
      `node "${name}": timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`,
    );
  }
  const goto = options.goto ?? null;
  if (goto !== null) {
    if (!Array.isArray(goto) || goto.length === 0) {
      throw new TypeError(
        `node "${name}": goto must be a non-empty list of nodes, node names and END`,
      );
    }
    for (const t of goto) {
      const ok =
        (typeof t === "string" && t.trim() !== "") ||
        (typeof t === "object" &&
          t !== null &&
          ((t as { kind?: unknown }).kind === "node" || (t as { kind?: unknown }).kind === "end"));
      if (!ok)
        throw new TypeError(
          `node "${name}": goto must list only nodes, node names and END, got ${String(t)}`,
        );
    }
  }
  if (options.retry) resolveRetry(options.retry, `node "${name}"`);
  if (options.onError !== undefined && typeof options.onError !== "function") {
    throw new TypeError(
      `node "${name}": onError must be a function (error, state, ctx) => update | Command`,
    );
  }
  if (options.cache && options.cache.ttlMs !== undefined && !(options.cache.ttlMs > 0)) {
    throw new TypeError(`node "${name}": cache.ttlMs must be a positive number of milliseconds`);
  }
  if (options.defer !== undefined && typeof options.defer !== "boolean") {
    throw new TypeError(
      `node "${name}": defer must be true or false, got ${String(options.defer)}`,
    );
  }
  const ref = options.ref ?? null;
  const n: Node<S> = {
    kind: "node",
    name,
    ref,
    timeoutMs,
    goto,
    retry: options.retry ?? null,
    cache: options.cache ?? null,
    onError: options.onError ?? null,
    defer: options.defer ?? false,
    handler: fn as Node<S>["handler"],
    to(target: EdgeTarget): Edge {
      return { kind: "edge", from: n, to: target };
    },
  };
  return n;
}

/** Whether a value is a {@link Node}. */
export function isNode(value: unknown): value is AnyNode {
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "node"
  );
}
