/**
 * How a messages field stores its updates: each message without the keys that hold their
 * default (`null`, `[]`, `{}`), and filled in again, in the schema's key order, when read.
 *
 * A prepared update's messages have passed `MessageSchema`, so every key is present; storing
 * only the keys that carry something makes the event log hold little more than the text of
 * the conversation, and reading it back gives the same objects, key for key.
 *
 * @module
 */
import type { JsonValue } from "../json/index.js";
import type { FieldCodec } from "./update-codec.js";

/** `"optional"`: a key absent by default (stored only when it holds something, not filled in when read). */
export type MessageKeyDefault = "null" | "list" | "object" | "optional";

type Default = MessageKeyDefault;

/** Each message type's keys after `type`, in schema order, with their defaults. */
export const MESSAGE_KEYS: Readonly<Record<string, readonly (readonly [string, Default])[]>> = {
  system: [
    ["id", "null"],
    ["content", "null"],
  ],
  human: [
    ["id", "null"],
    ["content", "null"],
  ],
  ai: [
    ["id", "null"],
    ["content", "null"],
    ["refusal", "null"],
    ["toolCalls", "list"],
    ["reasoning", "list"],
    ["finishReason", "null"],
    ["usage", "object"],
    ["responseMetadata", "optional"],
  ],
  tool: [
    ["id", "null"],
    ["content", "null"],
    ["name", "null"],
    ["toolCallId", "null"],
    ["arguments", "null"],
  ],
};

/** A tool call's keys, in schema order, with their defaults (`id` and `name` have none). */
const CALL_KEYS: readonly (readonly [string, Default | null])[] = [
  ["id", null],
  ["name", null],
  ["arguments", "object"],
  ["argumentsError", "null"],
];

type Obj = { [key: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `v` is the default `d` (`null`, `[]`, `{}`; an optional key's `{}`); never for `d` null. */
export function isDefault(v: unknown, d: Default | null): boolean {
  switch (d) {
    case "null":
      return v === null;
    case "list":
      return Array.isArray(v) && v.length === 0;
    case "object":
    case "optional":
      return isObj(v) && Object.keys(v).length === 0;
    default:
      return false;
  }
}

function fresh(d: Exclude<Default, "optional">): JsonValue {
  return d === "null" ? null : d === "list" ? [] : {};
}

function compactCall(call: JsonValue): JsonValue {
  if (!isObj(call)) return call;
  const out: Obj = {};
  for (const [k, d] of CALL_KEYS) {
    if (k in call && !isDefault(call[k], d)) out[k] = call[k]!;
  }
  return out;
}

function expandCall(call: JsonValue): JsonValue {
  if (!isObj(call)) return call;
  const out: Obj = {};
  for (let i = 0; i < CALL_KEYS.length; i++) {
    const [k, d] = CALL_KEYS[i]!;
    if (k in call) out[k] = call[k]!;
    else if (d !== null && d !== "optional") out[k] = fresh(d);
  }
  return out;
}

/** One message as stored: `type`, then only the keys whose value is not the default. */
export function compactMessage(m: JsonValue): JsonValue {
  if (!isObj(m) || typeof m.type !== "string") return m;
  const keys = MESSAGE_KEYS[m.type];
  if (!keys) return m; // a RemoveMessage marker, kept as it is
  const out: Obj = { type: m.type };
  for (const [k, d] of keys) {
    const v = m[k];
    if (v === undefined || isDefault(v, d)) continue;
    out[k] = k === "toolCalls" && Array.isArray(v) ? v.map(compactCall) : v;
  }
  return out;
}

/** `v`, or a fresh empty list when the key was left out. */
function orList(v: JsonValue | undefined): JsonValue {
  return v === undefined ? [] : v;
}

/** `v`, or `null` when the key was left out. */
function orNull(v: JsonValue | undefined): JsonValue {
  return v === undefined ? null : v;
}

/** One stored message made whole: every key of its type, in schema order, defaults filled in. */
export function expandMessage(m: JsonValue): JsonValue {
  if (!isObj(m) || typeof m.type !== "string") return m;
  // Each type's object made as one literal, in the order of MESSAGE_KEYS (a cold load expands every
  // message of the tail it folds, mostly before the JIT has compiled this; a literal has its
  // shape at once, where adding the keys one by one looks each up).
  switch (m.type) {
    case "human":
    case "system":
      return { type: m.type, id: orNull(m.id), content: orNull(m.content) };
    case "tool":
      return {
        type: m.type,
        id: orNull(m.id),
        content: orNull(m.content),
        name: orNull(m.name),
        toolCallId: orNull(m.toolCallId),
        arguments: orNull(m.arguments),
      };
    case "ai": {
      const calls = m.toolCalls;
      const out: Obj = {
        type: m.type,
        id: orNull(m.id),
        content: orNull(m.content),
        refusal: orNull(m.refusal),
        toolCalls: calls === undefined ? [] : Array.isArray(calls) ? calls.map(expandCall) : calls,
        reasoning: orList(m.reasoning),
        finishReason: orNull(m.finishReason),
        usage: m.usage === undefined ? {} : m.usage,
      };
      if (m.responseMetadata !== undefined) out.responseMetadata = m.responseMetadata;
      return out;
    }
    default:
      return expandByKeys(m);
  }
}

/** {@link expandMessage} by the table of keys (a type the switch does not name). */
function expandByKeys(m: Obj): JsonValue {
  const keys = MESSAGE_KEYS[m.type as string];
  if (!keys) return m;
  const out: Obj = { type: m.type as string };
  // (Indexed loops: a cold load expands every message of the tail it folds, mostly before the
  // JIT has compiled this, where destructuring iteration costs several times as much.)
  for (let i = 0; i < keys.length; i++) {
    const entry = keys[i]!;
    const k = entry[0];
    const v = m[k];
    if (v === undefined) {
      const d = entry[1];
      if (d !== "optional") out[k] = fresh(d);
    } else out[k] = k === "toolCalls" && Array.isArray(v) ? v.map(expandCall) : v;
  }
  return out;
}

/**
 * The storage codec of `messagesField()`: an update (one message, or a list of messages and
 * `RemoveMessage` markers) is stored with each message compacted by {@link compactMessage}.
 */
export const messagesCodec: FieldCodec = {
  encode: (update) => (Array.isArray(update) ? update.map(compactMessage) : compactMessage(update)),
  decode: (stored) => (Array.isArray(stored) ? stored.map(expandMessage) : expandMessage(stored)),
};
