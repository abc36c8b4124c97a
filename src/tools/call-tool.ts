/**
 * `callTool`: run a tool with validation and the tool middleware, and `toolResultContent`:
 * the text the model gets for a result.
 *
 * @module
 */
import type { z } from "zod";
import type { ContentPart, MessageContent } from "../chat/parts.js";
import { chatSchemas } from "../chat/schemas.js";
import { ValidationError } from "../errors/index.js";
import { isGraphInterrupt } from "../graph/context.js";
import { findNonJson, type JsonObject, type JsonValue } from "../json/index.js";
import { memo } from "../lazy.js";
import { hasHook, runBeforeTool, runOnToolError } from "../middleware/run-hooks.js";
import type { ToolMiddlewareContext } from "../middleware/types.js";
import { runWrapToolCall } from "../middleware/wrap-hooks.js";
import { zod } from "../zod-runtime.js";
import { recordAttempt } from "./attempt-span.js";
import { describe, isTool } from "./tool.js";
import { emptyToolContext } from "./tool-context.js";
import type { AnyTool, Tool, ToolCallResult, ToolContext } from "./types.js";

/** A non-empty list of content parts (built on first use: no zod at import). */
const partsSchema = memo(() => zod().array(chatSchemas().contentPart).min(1));

type Issue = { path: (string | number)[]; message: string };

function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    message: i.message,
  }));
}

function issueText(issues: readonly Issue[]): string {
  return issues
    .map((i) => (i.path.length === 0 ? i.message : `${i.path.join(".")}: ${i.message}`))
    .join("; ");
}

/**
 * Validate arguments, run the tool middleware and call a tool.
 *
 * Steps, in order:
 * 1. every `beforeTool(args, { tool, toolCallId, toolContext })` of `ctx.middleware`, in
 *    order; a hook returning an object replaces the arguments. Errors thrown here
 *    (`ToolDeniedError` for a denied call, `GraphInterrupt` for an approval) propagate
 *    unchanged and do not reach `onToolError`.
 * 2. the arguments are parsed by `tool.input` (strict: unknown arguments are rejected).
 * 3. `tool.fn(parsedArgs, ctx)` is called and awaited.
 * 4. the result (`undefined` counts as `null`) is parsed by `tool.output` when there is one,
 *    and must be JSON.
 *
 * Steps 3 and 4 run inside every `wrapToolCall(args, next, ...)` hook of `ctx.middleware`
 * (the first listed outermost); each `next` call is one attempt of them (`ToolRetryMiddleware`
 * calls it again after a failure).
 *
 * An error thrown by the tool, or a result that fails validation (after the last attempt),
 * goes through every `onToolError(error, ...)` hook in order and is then rethrown as it is. A `GraphInterrupt`
 * thrown by the tool passes through untouched.
 *
 * @param tool - a tool made by `tool()`.
 * @param args - the arguments, a JSON object.
 * @param ctx - run information and middleware; `ToolContext.empty({ toolName })` when omitted.
 * @returns `{ value, arguments }`: the validated result and the arguments after `beforeTool`.
 * @throws TypeError when `tool` is not a tool, or `ctx` is given and is not a `ToolContext`.
 * @throws ValidationError when the arguments (`Invalid arguments for tool "check_stock": sku: Invalid input: expected string, received number`)
 *   or the result (`Invalid result from tool "check_stock": ...`) do not match; `issues` lists each problem.
 * @example
 * ```ts
 * const { value } = await callTool(getOrderStatus, { orderId: "A-1001" }); // value: "shipped"
 * ```
 */
export async function callTool<I, O, C>(
  tool: Tool<I, O, C>,
  args: JsonObject,
  ctx?: ToolContext<C>,
): Promise<ToolCallResult<O>> {
  if (!isTool(tool)) {
    throw new TypeError(`callTool() expects a tool made by tool(), got ${describe(tool)}`);
  }
  if (
    ctx !== undefined &&
    (ctx === null || typeof ctx !== "object" || !Array.isArray((ctx as ToolContext).middleware))
  ) {
    throw new TypeError(
      `callTool() expects as ctx a ToolContext (ToolContext.empty({ context, ... }) outside a graph, or the ctx a node or tool receives), got ${describe(ctx)}`,
    );
  }
  const tctx = (ctx ?? emptyToolContext<C>({ toolName: tool.name })) as ToolContext<C>;
  const mctx: ToolMiddlewareContext = {
    tool: tool as unknown as AnyTool,
    toolCallId: tctx.toolCallId,
    toolContext: tctx as ToolContext,
  };
  const middleware = tctx.middleware;
  // (Without a beforeTool hook it is not called: an async call and an await per tool call.)
  const finalArgs = hasHook(middleware, "beforeTool")
    ? await runBeforeTool(middleware, args, mctx)
    : args;

  const parsed = tool.input.safeParse(finalArgs);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    throw new ValidationError(`Invalid arguments for tool "${tool.name}": ${issueText(issues)}`, {
      issues,
      cause: parsed.error,
    });
  }

  let value: O;
  try {
    let attempt = 0;
    let firstError: unknown;
    // (Inline, not a named closure: one per call costs a name set on it in the build.)
    value = (await runWrapToolCall(
      middleware,
      finalArgs,
      async (): Promise<JsonValue> => {
        // Each attempt parses the arguments afresh: a tool that changed its input object in a
        // failed attempt does not see the change in the next one.
        const n = ++attempt;
        // Attempts are recorded on the call's span once there is a second one.
        if (n === 2) recordAttempt(tctx, 1, firstError);
        try {
          const input = n === 1 ? parsed.data : (tool.input.parse(finalArgs) as I);
          const raw: unknown = await tool.fn(input, tctx);
          const result = validateResult<I, O, C>(tool, raw === undefined ? null : raw) as JsonValue;
          if (n > 1) recordAttempt(tctx, n, undefined);
          return result;
        } catch (e) {
          if (n === 1) firstError = e;
          else if (!isGraphInterrupt(e)) recordAttempt(tctx, n, e);
          throw e;
        }
      },
      mctx,
    )) as O;
  } catch (e) {
    if (isGraphInterrupt(e)) throw e;
    await runOnToolError(middleware, e, mctx);
    throw e;
  }
  return { value, arguments: finalArgs };
}

function validateResult<I, O, C>(tool: Tool<I, O, C>, raw: unknown): O {
  let value = raw;
  if (tool.output !== null) {
    const parsed = tool.output.safeParse(raw);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      throw new ValidationError(`Invalid result from tool "${tool.name}": ${issueText(issues)}`, {
        issues,
        cause: parsed.error,
      });
    }
    value = parsed.data;
  }
  const bad = findNonJson(value, "");
  if (bad !== null) {
    const path = bad.path === "" ? [] : bad.path.split(/\.|\[|\]/).filter((p) => p !== "");
    const issues: Issue[] = [
      { path: path.map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message: bad.problem },
    ];
    throw new ValidationError(
      `Invalid result from tool "${tool.name}": ${bad.path === "" ? "" : `${bad.path}: `}${bad.problem}; a tool result must be JSON`,
      { issues },
    );
  }
  return value as O;
}

/** A tool result that is content parts (an image it rendered, a file it fetched), made by {@link toolContent}. */
export type ToolContent = { type: "content"; parts: ContentPart[] };

/**
 * A tool result sent to the model as content parts instead of JSON: the `ToolMessage`'s
 * `content` is `parts`, as they are.
 *
 * @throws ValidationError when `parts` is not a list of valid content parts.
 * @example return toolContent([{ type: "text", text: "Sales by month:" }, { type: "image", data: png, mediaType: "image/png" }]);
 */
export function toolContent(parts: ContentPart[]): ToolContent {
  const parsed = partsSchema().safeParse(parts);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    throw new ValidationError(`toolContent: ${issueText(issues)}`, { issues });
  }
  return { type: "content", parts: parsed.data };
}

function isToolContent(value: unknown): value is ToolContent {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.type === "content" && Object.keys(v).length === 2 && partsSchema().safeParse(v.parts).success
  );
}

/**
 * What the model gets for a tool result: compact JSON `{"result":<value>}`, or, for a
 * {@link toolContent} result, its parts.
 *
 * @param value - the validated result, JSON (`undefined` is written as `null`).
 * @example toolResultContent("shipped") // '{"result":"shipped"}'
 * @example toolResultContent(12) // '{"result":12}'
 */
export function toolResultContent(value: unknown): MessageContent {
  if (isToolContent(value)) return value.parts;
  return JSON.stringify({ result: value === undefined ? null : value });
}
