/**
 * Routing values: `START`, `END`, `Command`, `Send` and `when` conditions.
 *
 * @module
 */
import type { Node } from "./node.js";

/** The end of the graph: a target that schedules nothing. */
export interface EndSentinel {
  readonly kind: "end";
  readonly name: "__end__";
}

/** The end of the graph. Route to it with `a.to(END)`, `when(c, a, { otherwise: END })`, or return it from a node that declares it in `goto`. */
export const END: EndSentinel = Object.freeze({ kind: "end", name: "__end__" });

/** Whether a value is {@link END}. */
export function isEnd(value: unknown): value is EndSentinel {
  return value === END;
}

/** A condition of {@link when}: reads the state after the superstep, returns whether to take the target. */
export type Condition<S> = (state: S) => boolean | Promise<boolean>;

/** Any node, whatever its state type. */
export type AnyNode = Node<never>;

/** A single routing target: a node, a node's name in the flow, or {@link END}. */
export type TargetRef = AnyNode | string | EndSentinel;

/** What an edge leads to: a target, several (fan-out), or a {@link when} condition. */
export type EdgeTarget =
  | TargetRef
  | Conditional<never>
  | ReadonlyArray<TargetRef | Conditional<never>>;

/** A conditional edge target made by {@link when}. */
export interface Conditional<S> {
  readonly kind: "when";
  readonly condition: Condition<S>;
  readonly target: TargetRef | ReadonlyArray<TargetRef>;
  readonly otherwise: TargetRef | ReadonlyArray<TargetRef> | null;
  /** Import path `module#export` of the condition, for `graph.toSpec()`; `null` when not given. */
  readonly ref: string | null;
}

/**
 * A conditional edge: after the superstep, `condition(state)` picks `target` when true,
 * `otherwise` (or nothing) when false.
 *
 * `options.ref` (`module#export`) names the condition so that `graph.toSpec()` can describe it
 * and `Graph.fromSpec` can find it again.
 *
 * @example think.to(when((s) => s.toolCalls.length > 0, act, { otherwise: END }))
 */
export function when<S>(
  condition: Condition<S>,
  target: TargetRef | ReadonlyArray<TargetRef>,
  options: { otherwise?: TargetRef | ReadonlyArray<TargetRef>; ref?: string } = {},
): Conditional<S> {
  return {
    kind: "when",
    condition,
    target,
    otherwise: options.otherwise ?? null,
    ref: options.ref ?? null,
  };
}

/** A target of `Command.goto`: a node, a node name, {@link END} or a {@link Send}. */
export type GotoTarget = AnyNode | string | EndSentinel | Send;

/**
 * Route to a node with its own input: `payload`'s fields are laid over the current state for
 * that task only, without reducers. Each `Send` is its own task, even to the same node.
 *
 * @example return items.map((item) => new Send(worker, { item }));
 */
export class Send {
  readonly node: AnyNode | string;
  readonly payload: Record<string, unknown> | null;
  constructor(node: AnyNode | string, payload: Record<string, unknown> | null = null) {
    this.node = node;
    this.payload = payload;
  }
}

/**
 * A node's return value that updates the state and routes.
 *
 * `update` is applied through the reducers. `goto` replaces the node's edges: a target or a
 * list of them; `[]` routes nowhere; omitted follows the edges. Every target must be in the
 * node's `goto` option.
 *
 * @example return new Command({ update: { answer }, goto: END });
 */
export class Command<S = Record<string, unknown>> {
  readonly update: Partial<S> | Record<string, unknown> | null;
  readonly goto: GotoTarget | ReadonlyArray<GotoTarget> | null;
  constructor(
    init: {
      update?: Partial<S> | Record<string, unknown> | null;
      goto?: GotoTarget | ReadonlyArray<GotoTarget> | null;
    } = {},
  ) {
    this.update = init.update ?? null;
    this.goto = init.goto === undefined ? null : init.goto;
  }
}
