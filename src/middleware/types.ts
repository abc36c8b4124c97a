/**
 * The middleware contract: an object with any of the hooks below. The agent nodes call them;
 * the engine does not know about them.
 *
 * Order: hooks run in the order the middleware is listed (for `buildReactAgent`, its
 * `ToolLimitMiddleware` first). `rewriteHistory` hooks run before every `beforeModel` hook.
 * `rewriteHistory`, `beforeModel` and `beforeTool` may return a replacement;
 * `afterModel` may return a replacement response; `onToolError` observes (and may return a
 * replacement error).
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import type { Usage } from "../chat/parts.js";
import type { ChatRequest, ChatResponse } from "../chat/types.js";
import type { NodeContext } from "../graph/context.js";
import type { RunEndInfo } from "../graph/run-end.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { AnyTool, ToolContext } from "../tools/types.js";

/** What model hooks see. */
export interface ModelMiddlewareContext {
  /** Name of the chat model (`chat.model`). */
  readonly model: string;
  /** The node calling the model. */
  readonly node: NodeContext;
  /** The state the node received. */
  readonly state: unknown;
  /**
   * Record a model call the middleware made itself (such as `SummarizationMiddleware`'s
   * summary call) so that the usage totals and run metrics count it. The model node stores
   * each recorded call with its answer, in `responseMetadata.middlewareCalls` of the
   * `AIMessage` (see {@link MiddlewareCall}); a step that fails stores nothing, so its calls
   * are not counted. Absent outside a model node.
   * @example ctx.recordCall?.({ middleware: "SummarizationMiddleware", model: "small", usage: response.usage })
   */
  readonly recordCall?: (call: MiddlewareCall) => void;
}

/**
 * A model call made by a middleware, stored in `responseMetadata.middlewareCalls` of the
 * answer of the step it was made in. Plain JSON.
 */
export interface MiddlewareCall {
  /** The middleware's name, e.g. `"SummarizationMiddleware"`. */
  middleware: string;
  /** The model that answered (the response's `model`, else the chat's name). */
  model: string;
  /** The call's token usage, as the chat model reported it (`{}` when it reported none). */
  usage: Usage;
}

/** What tool hooks see. */
export interface ToolMiddlewareContext {
  /** The tool being called. */
  readonly tool: AnyTool;
  /** Id of the tool call, or `null` outside an agent. */
  readonly toolCallId: string | null;
  /** The tool context of the call. */
  readonly toolContext: ToolContext;
}

/**
 * Middleware: any of these hooks.
 *
 * - `rewriteHistory(history, ctx)`: return a new conversation to store in place of the
 *   stored one, or nothing. The model node sends the new one and stores the change (removals
 *   of the messages that are gone, the new messages) in the same state update as the model's
 *   answer, so the change is one event of the log and a failed step changes nothing. Messages
 *   kept from the old history must keep their ids. Used by `SummarizationMiddleware`.
 * - `beforeModel(request, ctx)`: return a new `ChatRequest` to replace it, or nothing; only
 *   the request changes, never the state.
 * - `afterModel(response, ctx)`: return a new `ChatResponse` to replace it, or nothing.
 * - `beforeTool(args, ctx)`: return new arguments to replace them, or nothing; throw
 *   `ToolDeniedError` to deny the call (it reaches the model as a tool message).
 * - `onToolError(error, ctx)`: sees a tool's error (or a result validation error) before it is handled.
 * - `wrapModelCall(request, next, ctx)`: runs around the model call (after `beforeModel`,
 *   before `afterModel`); call `next(request)` once or more (retries) and return its response.
 *   The first middleware listed is the outermost wrapper. Each `next` call is one attempt: one
 *   `chat <model>` span when the graph is traced.
 * - `wrapToolCall(args, next, ctx)`: runs around the tool's own function and the check of its
 *   result (after `beforeTool` and the argument check, before `onToolError`); call `next(args)`
 *   once or more and return its result. Each `next` call is one attempt. A call whose result
 *   is stored is never run again, so it never reaches this hook again.
 * - `tools()`: tools this middleware gives the model (added by `buildReactAgent`).
 * - `onRunEnd(run)`: the graph's run `run.runId` (which continues `run.originRunId`) has
 *   completed: state the middleware keeps per run and its resumes (`ToolLimitMiddleware`'s
 *   budgets) can go. Not called for a run on a thread that pauses, fails or is stopped (it may
 *   be resumed); a run without a thread, which cannot be, calls it however it ends.
 *   Called once per completed run of every graph the middleware is on, after its last event
 *   is stored; what it throws is ignored (the run has ended), and so is the rejection of an
 *   `async` hook (not awaited). Unlike LangChain's `afterAgent`, it cannot change the state.
 */
export interface Middleware {
  /** Name for errors and docs. */
  readonly name?: string;
  rewriteHistory?(
    history: readonly Message[],
    ctx: ModelMiddlewareContext,
  ): Message[] | undefined | void | Promise<Message[] | undefined | void>;
  beforeModel?(
    request: ChatRequest,
    ctx: ModelMiddlewareContext,
  ): ChatRequest | undefined | void | Promise<ChatRequest | undefined | void>;
  afterModel?(
    response: ChatResponse,
    ctx: ModelMiddlewareContext,
  ): ChatResponse | undefined | void | Promise<ChatResponse | undefined | void>;
  beforeTool?(
    args: JsonObject,
    ctx: ToolMiddlewareContext,
  ): JsonObject | undefined | void | Promise<JsonObject | undefined | void>;
  onToolError?(error: unknown, ctx: ToolMiddlewareContext): void | Promise<void>;
  wrapModelCall?(
    request: ChatRequest,
    next: (request: ChatRequest) => Promise<ChatResponse>,
    ctx: ModelMiddlewareContext,
  ): Promise<ChatResponse>;
  wrapToolCall?(
    args: JsonObject,
    next: (args: JsonObject) => Promise<JsonValue>,
    ctx: ToolMiddlewareContext,
  ): Promise<JsonValue>;
  tools?(): ReadonlyArray<AnyTool>;
  onRunEnd?(run: RunEndInfo): void;
}

export type { RunEndInfo };
