/**
 * Tool calls requested by a model, and the parsing of their argument text.
 *
 * @module
 */
import { isPlainObject, type JsonObject, MAX_JSON_DEPTH, tooDeep } from "../json/index.js";
import { lazyObject } from "../lazy.js";
import { chatSchemas } from "./schemas.js";

/**
 * A tool invocation requested by the model: plain data.
 *
 * `arguments` is empty when `argumentsError` says why the argument text could not be parsed.
 */
export interface ToolCall {
  /** Id the model gave the call; its `ToolMessage` answers with it. */
  id: string;
  /** Name of the tool. */
  name: string;
  /** Parsed arguments; `{}` when `argumentsError` is set. */
  arguments: JsonObject;
  /** Why the argument text could not be parsed, or `null`. */
  argumentsError: string | null;
}

/** Zod schema of a {@link ToolCall}; `arguments` defaults to `{}`, `argumentsError` to `null` (built on first use: chat/schemas.ts). */
export const ToolCallSchema = lazyObject(() => chatSchemas().toolCall);

/**
 * Parse the JSON argument text of a tool call.
 *
 * Empty text (or `null`) means no arguments. Anything but a JSON object, `null` included, is
 * invalid, and so is an object nested deeper than `MAX_JSON_DEPTH` (512) levels: the call then
 * goes to the tool policy (`toolErrors`) like any invalid arguments, never into the state.
 *
 * @param raw - the argument text the model produced.
 * @returns `[arguments, error]`: the parsed object and `null`, or `{}` and a description of what is wrong.
 * @example parseToolArguments('{"orderId":"A-1"}') // [{ orderId: "A-1" }, null]
 */
export function parseToolArguments(raw: string | null | undefined): [JsonObject, string | null] {
  if (raw === null || raw === undefined || raw.trim() === "") return [{}, null];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    return [{}, `Invalid JSON in tool arguments: ${(e as Error).message}`];
  }
  if (!isPlainObject(parsed)) {
    const kind =
      parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
    return [{}, `Tool arguments must be a JSON object, got ${kind}`];
  }
  const deep = tooDeep(parsed, MAX_JSON_DEPTH, "arguments");
  if (deep !== null) {
    const at = deep.length > 60 ? `${deep.slice(0, 60)}…` : deep;
    return [{}, `Tool arguments nest deeper than ${MAX_JSON_DEPTH} levels (at ${at})`];
  }
  return [parsed as JsonObject, null];
}

/** Helpers for {@link ToolCall} data (a namespace object with the same name as the type). */
export const ToolCall = {
  /**
   * Build a tool call from the JSON argument text a model produced, with `argumentsError` set when the text is invalid.
   * @example ToolCall.fromArgumentsJson("call_1", "get_order_status", '{"orderId":"A-1001"}')
   */
  fromArgumentsJson(id: string, name: string, argumentsJson: string | null | undefined): ToolCall {
    const [args, error] = parseToolArguments(argumentsJson);
    return { id, name, arguments: args, argumentsError: error };
  },
  /** The call's arguments serialized as compact JSON text. */
  argumentsJson(call: Pick<ToolCall, "arguments">): string {
    return JSON.stringify(call.arguments ?? {});
  },
  /** Build a tool call with defaults: `arguments` `{}`, `argumentsError` `null`. */
  of(init: {
    id: string;
    name: string;
    arguments?: JsonObject;
    argumentsError?: string | null;
  }): ToolCall {
    return {
      id: init.id,
      name: init.name,
      arguments: init.arguments ?? {},
      argumentsError: init.argumentsError ?? null,
    };
  },
};
