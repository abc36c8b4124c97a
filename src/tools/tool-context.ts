/**
 * Building a {@link ToolContext}: from a running node (`ToolContext.fromNodeContext`), or an
 * empty one for calling a tool outside a graph (`ToolContext.empty`).
 *
 * @module
 */
import { ContextNotProvidedError } from "../errors/index.js";
import { GraphInterrupt, interruptKey, type NodeContext } from "../graph/context.js";
import type { JsonValue } from "../json/index.js";
import type { MemoryStore } from "../memory/types.js";
import type { ToolContext as ToolContextShape } from "./types.js";

/**
 * Run information passed to a tool as its second argument (see `src/tools/types.ts`).
 * Build one with {@link ToolContext.fromNodeContext} or {@link ToolContext.empty}.
 */
export type ToolContext<C = unknown> = ToolContextShape<C>;

/** Options of {@link ToolContext.fromNodeContext}. */
export interface FromNodeContextOptions {
  /** Id of the tool call being executed, or `null`. Scopes the default interrupt keys. */
  toolCallId?: string | null;
  /** Name of the tool, for error messages. */
  toolName?: string | null;
}

/** Options of {@link ToolContext.empty}; every field is optional. */
export interface EmptyToolContextOptions<C = unknown> {
  /** The `context` the tool reads; without it `ctx.context` throws `ContextNotProvidedError`. */
  context?: C;
  /** State given to the tool as `ctx.state`; default `null`. */
  state?: unknown;
  /** Middleware `callTool` runs; default none. */
  middleware?: readonly unknown[];
  /** Id of the tool call; default `null`. */
  toolCallId?: string | null;
  /** Name of the tool, for error messages. */
  toolName?: string | null;
  /** Workspace given to the tool; default `null`. */
  workspace?: unknown;
  /** Memory store given to the tool as `ctx.memoryStore`; default `null`. */
  memoryStore?: MemoryStore | null;
  /** Cancels the call; default a signal that never fires. */
  signal?: AbortSignal;
  /** Receives what the tool emits; default: dropped. */
  onEmit?: (data: unknown) => void;
  /** Answers to the tool's interrupts by key; an interrupt without an answer throws `GraphInterrupt`. */
  resumeValues?: Readonly<Record<string, JsonValue>>;
}

const NEVER = new AbortController().signal;

/** The default key of interrupt `n` (0-based) of a tool call made without a key. */
function defaultKey(taskId: string, toolCallId: string, n: number): string {
  return n === 0 ? `${taskId}#${toolCallId}` : `${taskId}#${toolCallId}#${n}`;
}

/**
 * Counts the interrupts of one tool call to build its default keys ({@link defaultKey}; a
 * node's tool context counts them itself: no closure per tool call).
 */
function keyMaker(taskId: string, toolCallId: string | null): (() => string) | null {
  if (toolCallId === null) return null;
  let n = 0;
  return () => defaultKey(taskId, toolCallId, n++);
}

function who(toolName: string | null): string {
  return toolName === null ? "A tool" : `Tool "${toolName}"`;
}

/**
 * Build the context of a tool called by a running node.
 *
 * Everything comes from the node's context. `context` throws `ContextNotProvidedError` when
 * the run has none. `emit(data)` sends a `"custom"` event through the node. `interrupt` asks
 * through the node; with a `toolCallId` its default key is `"<taskId>#<toolCallId>"` for the
 * first interrupt of the call and `"<taskId>#<toolCallId>#<n>"` for the n-th repeat (n from
 * 1), so parallel tool calls of one task never share a key. Without a `toolCallId` the
 * node's default key (`"<taskId>#<n>"`) is used.
 *
 * @param ctx - the context of the node calling the tool.
 * @param state - the state that node received.
 * @param options - `{ toolCallId, toolName }`.
 * @example
 * ```ts
 * const tctx = ToolContext.fromNodeContext(ctx, state, { toolCallId: call.id, toolName: call.name });
 * const { value } = await callTool(lookup, call.arguments, tctx);
 * ```
 */
export function toolContextFromNode<C = unknown>(
  ctx: NodeContext<C>,
  state: unknown,
  options: FromNodeContextOptions = {},
): ToolContext<C> {
  const toolCallId = options.toolCallId ?? null;
  const toolName = options.toolName ?? null;
  // Interrupts made so far without a key (the default keys count them; see keyMaker).
  let unkeyed = 0;
  return {
    graphName: ctx.graphName,
    node: ctx.node,
    state,
    threadId: ctx.threadId,
    runId: ctx.runId,
    rootRunId: ctx.rootRunId,
    originRunId: ctx.originRunId,
    taskId: ctx.taskId,
    toolCallId,
    middleware: ctx.middleware,
    workspace: ctx.workspace,
    memoryStore: ctx.memoryStore,
    get context(): C {
      if (!ctx.hasContext) {
        throw new ContextNotProvidedError(
          `${who(toolName)} called by node "${ctx.node}" of graph "${ctx.graphName}" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)`,
        );
      }
      return ctx.context;
    },
    get hasContext(): boolean {
      return ctx.hasContext;
    },
    signal: ctx.signal,
    emit(data: unknown): void {
      ctx.emit(data);
    },
    interrupt<T extends JsonValue = JsonValue>(value: JsonValue, opts?: { key?: string }): T {
      const key =
        interruptKey(
          opts,
          `${who(toolName)} called by node "${ctx.node}" of graph "${ctx.graphName}"`,
        ) ?? (toolCallId === null ? undefined : defaultKey(ctx.taskId, toolCallId, unkeyed++));
      return key === undefined ? ctx.interrupt<T>(value) : ctx.interrupt<T>(value, { key });
    },
  };
}

/**
 * A tool context for calling a tool outside a graph (what `callTool` uses when given none).
 *
 * Defaults: no graph, node, thread or run (`null`), `taskId` `""`, no middleware, no
 * `context` (reading it throws `ContextNotProvidedError`), a signal that never fires, `emit`
 * drops the data. `interrupt` returns the answer from `resumeValues` when there is one for its
 * key (default `"#<toolCallId>"`, or `"#<n>"` without a call id), and otherwise throws a
 * `GraphInterrupt` that nothing catches: outside a graph nobody can answer.
 *
 * @param options - what to put in the context.
 * @example
 * ```ts
 * const ctx = ToolContext.empty({ context: inventory });
 * await callTool(checkStock, { sku: "MUG-1" }, ctx); // { value: 12, arguments: { sku: "MUG-1" } }
 * ```
 */
export function emptyToolContext<C = unknown>(
  options: EmptyToolContextOptions<C> = {},
): ToolContext<C> {
  const toolCallId = options.toolCallId ?? null;
  const toolName = options.toolName ?? null;
  const given = Object.hasOwn(options, "context") && options.context !== undefined;
  const answers = options.resumeValues ?? {};
  const nextKey = keyMaker("", toolCallId);
  let n = 0;
  return {
    graphName: null,
    node: null,
    state: options.state ?? null,
    threadId: null,
    runId: null,
    rootRunId: null,
    originRunId: null,
    taskId: "",
    toolCallId,
    middleware: options.middleware ?? [],
    workspace: options.workspace ?? null,
    memoryStore: options.memoryStore ?? null,
    get context(): C {
      if (!given) {
        throw new ContextNotProvidedError(
          `${who(toolName)} read ctx.context, but it was called outside a graph without one; in a graph pass it as invoke(input, { context }), outside give callTool a ToolContext.empty({ context })`,
        );
      }
      return options.context as C;
    },
    get hasContext(): boolean {
      return given;
    },
    signal: options.signal ?? NEVER,
    emit(data: unknown): void {
      options.onEmit?.(data);
    },
    interrupt<T extends JsonValue = JsonValue>(value: JsonValue, opts?: { key?: string }): T {
      const key =
        interruptKey(opts, `${who(toolName)} called outside a graph`) ?? nextKey?.() ?? `#${n++}`;
      if (Object.hasOwn(answers, key)) return answers[key] as T;
      throw new GraphInterrupt([{ key, value }]);
    },
  };
}

/**
 * Helpers for {@link ToolContext} (a namespace object with the same name as the type).
 *
 * - `ToolContext.fromNodeContext(ctx, state, { toolCallId, toolName })`: see {@link toolContextFromNode}.
 * - `ToolContext.empty(options)`: see {@link emptyToolContext}.
 */
export const ToolContext = {
  fromNodeContext: toolContextFromNode,
  empty: emptyToolContext,
};
