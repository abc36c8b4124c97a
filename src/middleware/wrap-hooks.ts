/**
 * Running the `wrapModelCall` and `wrapToolCall` hooks of a run's middleware list: each hook
 * wraps the ones after it, the first listed outermost, the real call innermost.
 *
 * @module
 */
import { type ChatRequest, ChatResponse } from "../chat/types.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { describe } from "../tools/tool.js";
import { middlewareName } from "./run-hooks.js";
import type { ModelMiddlewareContext, ToolMiddlewareContext } from "./types.js";

const streamed = new WeakSet<object>();

/**
 * Mark a model error as coming after the stream's first chunk (its tokens were already
 * sent): `ModelRetryMiddleware` does not retry it. Called by `modelNode`; a no-op for a
 * value that is not an object.
 */
export function markStreamed(error: unknown): void {
  if (typeof error === "object" && error !== null) streamed.add(error);
}

/** Whether a model error came after the stream's first chunk (see {@link markStreamed}). */
export function wasStreamed(error: unknown): boolean {
  return typeof error === "object" && error !== null && streamed.has(error);
}

type Wrap<A, R> = (
  this: unknown,
  value: A,
  next: (value: A) => Promise<R>,
  ctx: unknown,
) => unknown;

function wrapOf<A, R>(mw: unknown, hook: string): Wrap<A, R> | null {
  if (typeof mw !== "object" || mw === null) return null;
  const h = (mw as Record<string, unknown>)[hook];
  return typeof h === "function" ? (h as Wrap<A, R>) : null;
}

function chain<A, R>(
  middleware: readonly unknown[],
  hook: string,
  inner: (value: A) => Promise<R>,
  ctx: unknown,
  check: (result: unknown, name: string) => R,
): (value: A) => Promise<R> {
  let next = inner;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i];
    const wrap = wrapOf<A, R>(mw, hook);
    if (wrap === null) continue;
    const after = next;
    next = async (value: A) => check(await wrap.call(mw, value, after, ctx), middlewareName(mw, i));
  }
  return next;
}

/**
 * Call the model through every `wrapModelCall` hook (the first middleware listed outermost).
 * With no such hook, `call(request)` is called once.
 *
 * @param call - the real call: one attempt per invocation.
 * @returns the response the outermost hook returned.
 * @throws TypeError when a hook returns something that is not a chat response. Errors thrown
 *   by the hooks or the call propagate.
 * @example const response = await runWrapModelCall(ctx.middleware, request, (r) => chat.complete(r), mctx);
 */
export function runWrapModelCall(
  middleware: readonly unknown[],
  request: ChatRequest,
  call: (request: ChatRequest) => Promise<ChatResponse>,
  ctx: ModelMiddlewareContext,
): Promise<ChatResponse> {
  return chain<ChatRequest, ChatResponse>(
    middleware,
    "wrapModelCall",
    call,
    ctx,
    checkModelResponse,
  )(request);
}

/** What a `wrapModelCall` hook returned, checked (a function of its own: no closure per call). */
function checkModelResponse(r: unknown, name: string): ChatResponse {
  if (
    typeof r !== "object" ||
    r === null ||
    !("content" in r) ||
    !Array.isArray((r as { toolCalls?: unknown }).toolCalls)
  ) {
    throw new TypeError(
      `middleware ${name} wrapModelCall returned ${describe(r)}, not a ChatResponse; return what next(request) resolved to`,
    );
  }
  return ChatResponse(r as ChatResponse);
}

/**
 * Run a tool's function through every `wrapToolCall` hook (the first middleware listed
 * outermost). With no such hook, `call(args)` is called once.
 *
 * @param call - the real call (the tool's function and the check of its result): one attempt per invocation.
 * @returns the result the outermost hook returned.
 * @throws Errors thrown by the hooks or the call propagate unchanged.
 * @example const value = await runWrapToolCall(middleware, args, (a) => runTool(a), tctx);
 */
export function runWrapToolCall(
  middleware: readonly unknown[],
  args: JsonObject,
  call: (args: JsonObject) => Promise<JsonValue>,
  ctx: ToolMiddlewareContext,
): Promise<JsonValue> {
  return chain<JsonObject, JsonValue>(middleware, "wrapToolCall", call, ctx, toolValue)(args);
}

/** What a `wrapToolCall` hook returned, as the call's value (`undefined` as `null`). */
function toolValue(r: unknown): JsonValue {
  return r === undefined ? null : (r as JsonValue);
}
