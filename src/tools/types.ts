/**
 * The shapes of tools: `Tool`, `ToolContext`, `ToolCallResult`. Built by `tool()` (tool.ts).
 *
 * @module
 */
import type { z } from "zod";
import type { ToolDefinition } from "../chat/types.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { MemoryStore } from "../memory/types.js";

/**
 * Run information passed to a tool as its second argument.
 *
 * `context` is the run's `context` (typed by `C`); reading it when the run has none throws
 * `ContextNotProvidedError`. `state` is the state the calling node received.
 */
export interface ToolContext<C = unknown> {
  /** Name of the graph, or `null` outside a graph. */
  readonly graphName: string | null;
  /** Name of the node that calls the tool. */
  readonly node: string | null;
  /** State that node received. */
  readonly state: unknown;
  readonly threadId: string | null;
  /** Id of the run. */
  readonly runId: string | null;
  /** Id of the outermost run when the graph runs inside another one. */
  readonly rootRunId: string | null;
  /** Id of the run this one continues (see `NodeContext.originRunId`), or `null` outside a graph. */
  readonly originRunId: string | null;
  /** Task of the node that calls the tool. */
  readonly taskId: string;
  /** Id of the tool call being executed. */
  readonly toolCallId: string | null;
  /** Middleware of the run, in order. */
  readonly middleware: readonly unknown[];
  /** The graph's workspace, or `null`. */
  readonly workspace: unknown;
  /** The run's long-term memory (`NodeContext.memoryStore`; LangGraph: `store`), or `null`. */
  readonly memoryStore: MemoryStore | null;
  /** The run's `context`. @throws ContextNotProvidedError when the run has none. */
  readonly context: C;
  /** Whether the run has a `context`. */
  readonly hasContext: boolean;
  /** Fires when the run is cancelled; pass it to anything slow. */
  readonly signal: AbortSignal;
  /** Sends a `"custom"` stream event, like `NodeContext.emit`. */
  emit(data: unknown): void;
  /** Pause for a human answer, like `NodeContext.interrupt` (key scoped to this tool call by default). @throws TypeError if `options` is not an object or `key` is not a non-empty string. */
  interrupt<T extends JsonValue = JsonValue>(value: JsonValue, options?: { key?: string }): T;
}

/** The function of a tool: parsed arguments and the context in, a result (sync or async) out. */
export type ToolFunction<I, O, C> = (args: I, ctx: ToolContext<C>) => O | Promise<O>;

/**
 * A callable exposed to models, with validated input and output. Made by `tool()`.
 * `I` is the parsed arguments, `O` the result, `C` the run context type.
 */
export interface Tool<I = JsonObject, O = JsonValue, C = unknown> {
  readonly kind: "tool";
  /** Tool name shown to the model; matches `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** Tool description shown to the model. */
  readonly description: string;
  /** Zod schema the arguments are validated against (a strict object). */
  readonly input: z.ZodType<I>;
  /** Zod schema the result is validated against; `null` accepts any JSON value. */
  readonly output: z.ZodType<O> | null;
  /**
   * The wrapped function. Declared as a method (not a `ToolFunction` property) so that every
   * tool is assignable to {@link AnyTool} whatever its types.
   */
  fn(args: I, ctx: ToolContext<C>): O | Promise<O>;
  /** JSON schema of the arguments (what the model sees; `additionalProperties: false`). */
  inputSchema(): JsonObject;
  /** {@link inputSchema} as compact JSON text. */
  inputSchemaJson(): string;
  /** JSON schema of the result (`{}` when any JSON value is accepted). */
  outputSchema(): JsonObject;
  /** {@link outputSchema} as compact JSON text. */
  outputSchemaJson(): string;
  /** Whether the function takes a `ToolContext` (declares a second parameter). */
  supportsContext(): boolean;
  /** The `ToolDefinition` sent to models. */
  definition(): ToolDefinition;
}

/**
 * Any tool, whatever its argument, result and context types: the type of tool lists
 * (`modelNode({ tools })`, `Middleware.tools()`). `Tool<never, unknown, never>` would not do:
 * a zod schema of `{ sku: string }` is not a zod schema of `never`.
 */
export type AnyTool = Tool<unknown, unknown, unknown>;

/** Validated result of a tool call and the arguments it ran with. */
export interface ToolCallResult<O = JsonValue> {
  /** The result, validated against the tool's output schema. */
  value: O;
  /** The arguments after `beforeTool` middleware. */
  arguments: JsonObject;
}
