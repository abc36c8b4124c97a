/**
 * The stored messages of a node's update as the run metrics read them: the messages only
 * (not those an earlier event wrote), and which of them a chat model answered.
 *
 * @module
 */
import { storedMessageKey } from "../middleware/usage-totals.js";

/** A JSON object of an event's data. */
export type Data = Record<string, unknown>;
/** Whether `v` is a JSON object (not `null`, not an array). */
export const isObject = (v: unknown): v is Data =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const MESSAGE_TYPES = new Set(["system", "human", "ai", "tool"]);

/**
 * `update` without the messages an earlier event already wrote (`written`, by
 * `storedMessageKey`), which it then marks: a message a later update writes again (a kept one
 * after `SummarizationMiddleware`'s removals) is no second model or tool call, as the usage
 * totals count it once. Lists among the values and one level inside them, as the totals read.
 */
export function freshUpdate(update: unknown, written: Set<string>): unknown {
  if (!isObject(update)) return update;
  const fresh = (list: unknown[]) =>
    list.filter((m) => {
      if (!isObject(m) || !MESSAGE_TYPES.has(m.type as string)) return true;
      const key = storedMessageKey(m);
      if (written.has(key)) return false;
      written.add(key);
      return true;
    });
  const out: Data = {};
  for (const [k, v] of Object.entries(update)) {
    if (Array.isArray(v)) out[k] = fresh(v);
    else if (isObject(v)) {
      const inner: Data = {};
      for (const [ik, iv] of Object.entries(v)) inner[ik] = Array.isArray(iv) ? fresh(iv) : iv;
      out[k] = inner;
    } else out[k] = v;
  }
  return out;
}

/** The message objects among an update's values (each list value's objects). */
export function messagesOf(update: unknown): Data[] {
  if (!isObject(update)) return [];
  const out: Data[] = [];
  for (const value of Object.values(update)) {
    if (Array.isArray(value)) for (const m of value) if (isObject(m)) out.push(m);
  }
  return out;
}

/**
 * Whether a stored message is a model's answer: an `AIMessage` with what a chat model
 * reports (`usage`, `responseMetadata` or `finishReason`), not one a node wrote itself.
 */
export function isModelAnswer(m: Data): boolean {
  return (
    m.type === "ai" &&
    (isObject(m.usage) || isObject(m.responseMetadata) || typeof m.finishReason === "string")
  );
}
