/**
 * The model calls middleware make themselves (`ctx.recordCall`), as `modelNode` stores them
 * with its answer: `responseMetadata.middlewareCalls` of the `AIMessage`.
 *
 * @module
 */
import { USAGE_TOKEN_KEYS } from "../chat/schemas.js";
import type { JsonObject } from "../json/index.js";
import type { MiddlewareCall } from "./types.js";

/** A recorded middleware call as it is stored: its numeric usage fields only (no `raw`). */
export function storedCall(call: MiddlewareCall): MiddlewareCall {
  const usage: Record<string, number> = {};
  for (const k of USAGE_TOKEN_KEYS) {
    const n = (call.usage as Record<string, unknown> | undefined)?.[k];
    if (typeof n === "number" && Number.isFinite(n)) usage[k] = n;
  }
  return { middleware: String(call.middleware), model: String(call.model), usage };
}

/** The answer's metadata with the middleware's own model calls of the step, when there were some. */
export function withMiddlewareCalls(
  meta: JsonObject | null,
  calls: MiddlewareCall[],
): JsonObject | null {
  if (calls.length === 0) return meta;
  return { ...(meta ?? {}), middlewareCalls: calls as unknown as JsonObject[] };
}
