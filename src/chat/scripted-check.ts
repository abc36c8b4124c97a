/**
 * The shape check of a `ScriptedChat` response: a malformed one is refused with a
 * `TypeError` naming the response and the field, instead of reaching the run half-formed.
 *
 * @module
 */
import { tooDeep } from "../json/depth.js";
import { isPlainObject } from "../json/index.js";

const FIELDS = new Set([
  "content",
  "refusal",
  "toolCalls",
  "reasoning",
  "finishReason",
  "usage",
  "model",
  "raw",
  "responseMetadata",
]);
const CALL_FIELDS = new Set(["id", "name", "arguments", "argumentsError"]);

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

/**
 * Throw a `TypeError` naming `where` (`"response 2"`) and the field at fault when `value` is
 * not a well-formed `ChatResponseInit`.
 */
export function checkScriptedResponse(value: object, where: string): void {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new TypeError(`ScriptedChat: ${where}: ${field} must be ${want}, got ${kind(got)}`);
  };
  const r = value as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    if (!FIELDS.has(key)) {
      throw new TypeError(
        `ScriptedChat: ${where}: unknown field "${key}"; a response has ${[...FIELDS].join(", ")}`,
      );
    }
  }
  // Content is a string, null or a list of parts (their shapes are checked by the message schema).
  if (r.content !== undefined && r.content !== null && typeof r.content !== "string") {
    if (!Array.isArray(r.content)) bad("content", "a string, a list of parts or null", r.content);
  }
  if (r.reasoning !== undefined && !Array.isArray(r.reasoning)) {
    bad("reasoning", "a list of reasoning parts", r.reasoning);
  }
  if (r.responseMetadata !== undefined && !isPlainObject(r.responseMetadata)) {
    bad("responseMetadata", "an object", r.responseMetadata);
  }
  for (const f of ["refusal", "finishReason", "model"] as const) {
    if (r[f] !== undefined && r[f] !== null && typeof r[f] !== "string") {
      bad(f, "a string or null", r[f]);
    }
  }
  if (r.usage !== undefined && r.usage !== null && !isPlainObject(r.usage)) {
    bad("usage", "an object", r.usage);
  }
  if (r.toolCalls === undefined) return;
  if (!Array.isArray(r.toolCalls)) bad("toolCalls", "an array", r.toolCalls);
  (r.toolCalls as unknown[]).forEach((c, i) => {
    const at = `toolCalls[${i}]`;
    if (!isPlainObject(c)) bad(at, "an object", c);
    const call = c as Record<string, unknown>;
    for (const key of Object.keys(call)) {
      if (!CALL_FIELDS.has(key)) {
        throw new TypeError(
          `ScriptedChat: ${where}: ${at} has an unknown field "${key}"; a tool call has ${[...CALL_FIELDS].join(", ")}`,
        );
      }
    }
    // Empty ones are allowed: a test may script what a faulty model returns.
    if (typeof call.id !== "string") bad(`${at}.id`, "a string", call.id);
    if (typeof call.name !== "string") bad(`${at}.name`, "a string", call.name);
    if (call.arguments !== undefined && !isPlainObject(call.arguments)) {
      bad(`${at}.arguments`, "an object", call.arguments);
    }
    if (call.arguments !== undefined && tooDeep(call.arguments) !== null) {
      throw new TypeError(
        `ScriptedChat: ${where}: ${at}.arguments is nested deeper than the JSON limit (MAX_JSON_DEPTH)`,
      );
    }
    if (
      call.argumentsError !== undefined &&
      call.argumentsError !== null &&
      typeof call.argumentsError !== "string"
    ) {
      bad(`${at}.argumentsError`, "a string or null", call.argumentsError);
    }
  });
}
