/**
 * A chat response checked before `modelNode` stores it: its tool calls validated, and the
 * model it is billed for added to its metadata.
 *
 * @module
 */
import { ToolCall } from "../chat/tool-call.js";
import type { ChatResponse } from "../chat/types.js";
import { ModelProviderError } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";

/**
 * The response's metadata, with `model` (the model the response names, else the chat model's
 * name) added when the response reports token usage and names no model there yet: the usage
 * totals price a message by it.
 *
 * @example
 * ```ts
 * withBilledModel(ChatResponse({ content: "hi", usage: { inputTokens: 3 } }), "gpt-x"); // { model: "gpt-x" }
 * ```
 */
export function withBilledModel(response: ChatResponse, chatModel: string): JsonObject | null {
  const meta = response.responseMetadata ?? null;
  const u = response.usage;
  const counted = [u.inputTokens, u.outputTokens, u.totalTokens].some((n) => typeof n === "number");
  if (!counted || (meta !== null && "model" in meta)) return meta;
  return { ...(meta ?? {}), model: response.model ?? chatModel };
}

/**
 * The tool calls of a response, checked before anything is stored: each needs a non-empty
 * string id and name and object arguments, and ids must be unique in the turn (a tool message
 * answers its call by id).
 * @throws ModelProviderError (retryable: another answer may be valid) naming the call at fault.
 * @returns the calls as `ToolCall`s, in order.
 */
export function checkToolCalls(
  calls: readonly ToolCall[],
  model: string,
  node: string,
): ToolCall[] {
  // (Only a turn of two calls or more can repeat an id: no set for one call or none.)
  const seen = calls.length > 1 ? new Set<string>() : null;
  return calls.map((c, i) => {
    if (c === null || typeof c !== "object") throw badCall(model, node, i, "no call object");
    if (typeof c.id !== "string" || c.id === "")
      throw badCall(model, node, i, `an invalid id (${JSON.stringify(c.id) ?? "undefined"})`);
    if (typeof c.name !== "string" || c.name === "")
      throw badCall(model, node, i, `an invalid name (${JSON.stringify(c.name) ?? "undefined"})`);
    if (
      c.arguments !== undefined &&
      (c.arguments === null || typeof c.arguments !== "object" || Array.isArray(c.arguments))
    ) {
      throw badCall(model, node, i, "arguments that are not an object");
    }
    if (seen !== null) {
      if (seen.has(c.id))
        throw badCall(
          model,
          node,
          i,
          `the id "${c.id}" of an earlier call of the same turn; tool call ids must be unique`,
        );
      seen.add(c.id);
    }
    return ToolCall.of(c);
  });
}

/**
 * The error of tool call `i` (a function of its own: a named closure per call costs a name set
 * on it in the build, esbuild's keepNames).
 */
function badCall(model: string, node: string, i: number, what: string): ModelProviderError {
  return new ModelProviderError(
    `Model "${model}" (node "${node}") returned tool call ${i} with ${what}; nothing was stored`,
    { provider: model, retryable: true },
  );
}
