/**
 * Routing values: `START`, `END`, `Command`, `Send` and `when` conditions.
 *
 * @module
 */
import { isPlainObject, type JsonValue } from "../json/index.js";
import { describeValue } from "../state/define-state.js";
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
 * `otherwise` (or nothing) when false. `state` is the run's own state, not a copy: the
 * condition reads it and must neither change it nor keep it (later supersteps write it in
 * place); copy what it needs to keep.
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
 * @param node - the target: a node, or the name of a node in the flow.
 * @param payload - a plain object of state fields, or `null` (default) for none.
 * @throws TypeError if `node` is neither a node nor a non-empty node name (`END` included: a
 *   `Send` starts a task), or `payload` is neither a plain object nor `null`.
 * @example return items.map((item) => new Send(worker, { item }));
 */
export class Send {
  readonly node: AnyNode | string;
  readonly payload: Record<string, unknown> | null;
  constructor(node: AnyNode | string, payload: Record<string, unknown> | null = null) {
    if (!isTargetNode(node)) {
      throw new TypeError(
        `new Send(node, payload): node must be a node or the name of one, got ${describeTarget(node)}${isEnd(node) ? "; a Send starts a task, so end with Command({ goto: END }) or a returned END instead" : ""}`,
      );
    }
    if (payload !== null && payload !== undefined && !isPlainObject(payload)) {
      throw new TypeError(
        `new Send(${describeTarget(node)}, payload): payload must be a plain object of state fields or null, got ${describeValue(payload)}`,
      );
    }
    this.node = node;
    this.payload = payload ?? null;
  }
}

/**
 * A node's return value that updates the state and routes, or a run's input that continues a
 * thread (`graph.invoke(new Command({ resume, update, goto }), { threadId })`).
 *
 * `update` is applied through the reducers. `goto` replaces the node's edges: a target or a
 * list of them; `[]` routes nowhere; omitted follows the edges. Every target must be in the
 * node's `goto` option. As run input (see docs/editing-state.md): `resume` answers pending
 * interrupts by key, `update` is applied as `graph.updateState` applies it, and `goto` sets
 * the tasks that run next; `resume` is for run input only.
 *
 * With `graph: Command.PARENT`, a node of a subgraph updates and routes its parent instead
 * (LangGraph's `Command.PARENT`; see docs/subgraphs.md): the child's run ends there, and the
 * parent applies `update` and `goto` as if the `subgraph(...)` node had returned them; the
 * targets must be nodes of the parent's flow (its goto list is not needed).
 *
 * @param init - `{ update?, goto?, resume?, graph? }`; omitted, the command does nothing and follows the edges.
 * @throws TypeError if `init` is not a plain object, has a key other than `update`, `goto`, `resume` and `graph`,
 *   `graph` is neither `Command.PARENT` nor `null`, `graph` is given with `resume`,
 *   `resume` is not a plain object of answers,
 *   `update` is neither a plain object nor `null`, or `goto` is neither a node, a non-empty
 *   node name, `END`, a {@link Send} nor a list of them.
 * @example return new Command({ update: { answer }, goto: END });
 * @example return new Command({ graph: Command.PARENT, update: { owner: "billing" }, goto: "billing" });
 */
export class Command<S = Record<string, unknown>> {
  /** `graph` of a command for the graph that runs this one as a subgraph: `"__parent__"`. */
  static readonly PARENT = "__parent__" as const;
  /** `Command.PARENT` when the command is for the parent graph; `null` for the node's own graph. */
  readonly graph: typeof Command.PARENT | null;
  readonly update: Partial<S> | Record<string, unknown> | null;
  readonly goto: GotoTarget | ReadonlyArray<GotoTarget> | null;
  /** Answers to pending interrupts by key (run input only), or `null`. */
  readonly resume: Readonly<Record<string, JsonValue>> | null;
  constructor(
    init: {
      update?: Partial<S> | Record<string, unknown> | null;
      goto?: GotoTarget | ReadonlyArray<GotoTarget> | null;
      resume?: Readonly<Record<string, JsonValue>> | null;
      graph?: typeof Command.PARENT | null;
    } = {},
  ) {
    if (!isPlainObject(init)) {
      throw new TypeError(
        `new Command(init): init must be an object { update?, goto? }, got ${describeValue(init)}`,
      );
    }
    for (const key of Object.keys(init)) {
      if (key !== "update" && key !== "goto" && key !== "resume" && key !== "graph") {
        throw new TypeError(
          `new Command(init): unknown key "${key}"; a Command takes only update, goto, resume and graph`,
        );
      }
    }
    const { update, goto, resume, graph } = init;
    if (graph !== undefined && graph !== null && graph !== Command.PARENT) {
      throw new TypeError(
        `new Command(init): graph must be Command.PARENT ("__parent__") or null, got ${describeValue(graph)}`,
      );
    }
    if (graph === Command.PARENT && resume !== undefined && resume !== null) {
      throw new TypeError(
        "new Command(init): a Command for the parent graph cannot carry resume answers; resume answers are run input",
      );
    }
    this.graph = graph ?? null;
    if (resume !== undefined && resume !== null && !isPlainObject(resume)) {
      throw new TypeError(
        `new Command(init): resume must be an object of answers by interrupt key or null, got ${describeValue(resume)}`,
      );
    }
    this.resume = resume ?? null;
    if (update !== undefined && update !== null && !isPlainObject(update)) {
      throw new TypeError(
        `new Command(init): update must be a plain object of state fields or null, got ${describeValue(update)}`,
      );
    }
    if (goto !== undefined && goto !== null) {
      const targets = Array.isArray(goto) ? goto : [goto];
      for (const [i, t] of targets.entries()) {
        if (!(t instanceof Send) && !isEnd(t) && !isTargetNode(t)) {
          throw new TypeError(
            `new Command(init): goto${Array.isArray(goto) ? `[${i}]` : ""} must be a node, a node name, END or a Send (or a list of them), got ${describeTarget(t)}`,
          );
        }
      }
    }
    this.update = update ?? null;
    this.goto = goto === undefined ? null : goto;
  }
}

/** Whether a value is a node or a non-empty node name. */
function isTargetNode(value: unknown): value is AnyNode | string {
  if (typeof value === "string") return value.trim() !== "";
  return (
    typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "node"
  );
}

/** A routing target as error messages show it. */
function describeTarget(value: unknown): string {
  if (isEnd(value)) return "END";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "node")
    return `node "${(value as { name: string }).name}"`;
  return describeValue(value);
}
