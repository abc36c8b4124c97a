/**
 * Running middleware hooks over a run's middleware list (typed `readonly unknown[]`, as the
 * graph holds it). Entries without the hook are skipped; hooks run in list order, each seeing
 * what the previous one returned.
 *
 * @module
 */
import { type ChatRequest, ChatResponse, type ChatResponseInit } from "../chat/types.js";
import { isPlainObject, type JsonObject } from "../json/index.js";
import { describe, isTool } from "../tools/tool.js";
import type { AnyTool } from "../tools/types.js";
import type { ModelMiddlewareContext, ToolMiddlewareContext } from "./types.js";

type Hook = (this: unknown, ...args: unknown[]) => unknown;

function hookOf(mw: unknown, hook: string): Hook | null {
  if (typeof mw !== "object" || mw === null) return null;
  const h = (mw as Record<string, unknown>)[hook];
  return typeof h === "function" ? (h as Hook) : null;
}

/**
 * Whether any of `middleware` has the hook `hook` (a function under that name): the model
 * node skips the call, an async call and an await, of a hook none has.
 */
export function hasHook(middleware: readonly unknown[], hook: string): boolean {
  for (const mw of middleware) if (hookOf(mw, hook) !== null) return true;
  return false;
}

/**
 * The name a middleware is called by in error messages: its `name`, else its class name,
 * else `#<index>` in the list.
 * @example middlewareName(ToolLimitMiddleware({ maxToolCalls: 3 }), 0) // "ToolLimitMiddleware"
 */
export function middlewareName(mw: unknown, index: number): string {
  if (typeof mw === "object" && mw !== null) {
    const name = (mw as { name?: unknown }).name;
    if (typeof name === "string" && name !== "") return name;
    const ctor = (mw as { constructor?: { name?: string } }).constructor?.name;
    if (ctor && ctor !== "Object") return ctor;
  }
  return `#${index}`;
}

function isChatRequest(value: unknown): value is ChatRequest {
  return (
    isPlainObject(value) &&
    Array.isArray(value.messages) &&
    Array.isArray(value.tools) &&
    "toolChoice" in value &&
    "outputSchema" in value
  );
}

function isChatResponseLike(value: unknown): value is ChatResponseInit {
  if (!isPlainObject(value)) return false;
  const content = value.content;
  return (
    (content === null || typeof content === "string") &&
    Array.isArray(value.toolCalls) &&
    value.toolCalls.every(
      (c: unknown) => isPlainObject(c) && typeof c.id === "string" && typeof c.name === "string",
    )
  );
}

/**
 * Run every `beforeModel` hook in order. A hook returning nothing (`undefined` or `null`)
 * keeps the request; returning a `ChatRequest` replaces it for the next hooks and the model.
 *
 * @returns the request to send.
 * @throws TypeError when a hook returns something else than a full `ChatRequest`
 *   (`messages`, `tools`, `toolChoice`, `outputSchema`). Errors thrown by hooks propagate.
 * @example const request = await runBeforeModel(ctx.middleware, ChatRequest({ messages }), mctx);
 */
export async function runBeforeModel(
  middleware: readonly unknown[],
  request: ChatRequest,
  ctx: ModelMiddlewareContext,
): Promise<ChatRequest> {
  let current = request;
  for (let i = 0; i < middleware.length; i++) {
    const mw = middleware[i];
    const hook = hookOf(mw, "beforeModel");
    if (hook === null) continue;
    const r = await hook.call(mw, current, ctx);
    if (r === undefined || r === null) continue;
    if (!isChatRequest(r)) {
      throw new TypeError(
        `middleware ${middlewareName(mw, i)} beforeModel returned ${describe(r)}, not a ChatRequest { messages, tools, toolChoice, outputSchema }; return a changed copy of the request, or nothing to keep it`,
      );
    }
    current = r;
  }
  return current;
}

/**
 * Run every `afterModel` hook in order. A hook returning nothing keeps the response; returning
 * a response (`content` and `toolCalls` required, other fields default as in `ChatResponse()`)
 * replaces it.
 *
 * @returns the response the node goes on with.
 * @throws TypeError when a hook returns something that is not a chat response.
 * @example const response = await runAfterModel(ctx.middleware, response, mctx);
 */
export async function runAfterModel(
  middleware: readonly unknown[],
  response: ChatResponse,
  ctx: ModelMiddlewareContext,
): Promise<ChatResponse> {
  let current = response;
  for (let i = 0; i < middleware.length; i++) {
    const mw = middleware[i];
    const hook = hookOf(mw, "afterModel");
    if (hook === null) continue;
    const r = await hook.call(mw, current, ctx);
    if (r === undefined || r === null) continue;
    if (!isChatResponseLike(r)) {
      throw new TypeError(
        `middleware ${middlewareName(mw, i)} afterModel returned ${describe(r)}, not a ChatResponse { content, toolCalls, ... }; return a changed copy of the response, or nothing to keep it`,
      );
    }
    current = ChatResponse(r);
  }
  return current;
}

/**
 * Run every `beforeTool` hook in order. A hook returning nothing keeps the arguments;
 * returning a plain object replaces them for the next hooks and the tool. The first hook is
 * called synchronously (before any `await`), so calls started in order reach it in order.
 *
 * @returns the arguments the tool runs with.
 * @throws TypeError when a hook returns something that is not a plain object. `ToolDeniedError`,
 *   `GraphInterrupt` and every other error thrown by a hook propagate unchanged.
 * @example const args = await runBeforeTool(tctx.middleware, call.arguments, { tool, toolCallId, toolContext: tctx });
 */
export async function runBeforeTool(
  middleware: readonly unknown[],
  args: JsonObject,
  ctx: ToolMiddlewareContext,
): Promise<JsonObject> {
  let current = args;
  for (let i = 0; i < middleware.length; i++) {
    const mw = middleware[i];
    const hook = hookOf(mw, "beforeTool");
    if (hook === null) continue;
    const r = await hook.call(mw, current, ctx);
    if (r === undefined || r === null) continue;
    if (!isPlainObject(r)) {
      throw new TypeError(
        `middleware ${middlewareName(mw, i)} beforeTool returned ${describe(r)} for tool "${ctx.tool.name}", not an arguments object; return new arguments, or nothing to keep them`,
      );
    }
    current = r as JsonObject;
  }
  return current;
}

/**
 * Run every `onToolError` hook in order with the error. Hooks observe; what they return is
 * ignored. An error thrown by a hook propagates (and the remaining hooks do not run).
 * @example await runOnToolError(tctx.middleware, error, { tool, toolCallId, toolContext: tctx });
 */
export async function runOnToolError(
  middleware: readonly unknown[],
  error: unknown,
  ctx: ToolMiddlewareContext,
): Promise<void> {
  for (const mw of middleware) {
    const hook = hookOf(mw, "onToolError");
    if (hook === null) continue;
    await hook.call(mw, error, ctx);
  }
}

/**
 * The tools the middleware give the model: each `tools()` result, in middleware order.
 *
 * @throws TypeError when a `tools()` hook returns something that is not an array of tools.
 * @example const all = [...tools, ...middlewareTools(middleware)];
 */
export function middlewareTools(middleware: readonly unknown[]): Array<AnyTool> {
  const out: Array<AnyTool> = [];
  for (const [i, mw] of middleware.entries()) {
    const hook = hookOf(mw, "tools");
    if (hook === null) continue;
    const r = hook.call(mw);
    if (!Array.isArray(r)) {
      throw new TypeError(
        `middleware ${middlewareName(mw, i)} tools() returned ${describe(r)}, not an array of tools`,
      );
    }
    for (const [j, t] of r.entries()) {
      if (!isTool(t)) {
        throw new TypeError(
          `middleware ${middlewareName(mw, i)} tools() returned ${describe(t)} at index ${j}, not a tool made by tool()`,
        );
      }
      out.push(t);
    }
  }
  return out;
}
