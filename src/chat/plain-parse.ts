/**
 * The parse of plain messages and tool calls without zod: for the values an agent writes on
 * every step (messages whose content is text, tool calls whose arguments hold only strings,
 * numbers, booleans and `null`), exactly what the schemas of schemas.ts (their twins,
 * zod-cycles.ts) give for them: a new object with the schema's keys in its order, defaults
 * filled in (fresh `[]` and `{}`), nothing shared with the value. Anything else (content
 * parts, reasoning parts, nested arguments, unknown keys, a value zod refuses, an object that
 * is not a plain one) gives `undefined`, and zod parses it as before; so zod's errors are
 * unchanged. zod's object parse allocated about a tenth of an agent turn.
 *
 * Read as zod reads: a key is there when `key in value` (as zod's object parse asks), an
 * unknown key is one `for … in` meets (as zod's strict object finds them), a record's keys are
 * its own enumerable ones (as zod's record takes them).
 *
 * @module
 */
import type { Message } from "./messages.js";
import { USAGE_TOKEN_KEYS } from "./schemas.js";
import type { ToolCall } from "./tool-call.js";

type Obj = Record<string, unknown>;

/** A plain object (prototype `Object.prototype`) or `null`. */
function plain(v: unknown): Obj | null {
  return typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    Object.getPrototypeOf(v) === Object.prototype
    ? (v as Obj)
    : null;
}

/** Whether every key `for … in` meets in `o` is one of `keys` (a strict object's check). */
function onlyKeys(o: Obj, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

/** `z.string().nullable().default(null)`: the value, or `NO` when zod would refuse it. */
function nullableString(v: unknown): string | null | typeof NO {
  if (v === undefined || v === null) return null;
  return typeof v === "string" ? v : NO;
}

/** What a helper answers for a value it does not take. */
const NO: unique symbol = Symbol("not plain");

/**
 * A JSON object of strings, finite numbers, booleans and `null` (`z.record(z.string(),
 * z.json())` on such a value): a copy, or `NO`.
 */
function flatRecord(v: unknown): Obj | typeof NO {
  const o = plain(v);
  if (o === null || Object.getOwnPropertySymbols(o).length > 0) return NO;
  // zod's record reads `constructor` (its plain-object check): one that is not Object's (own
  // and non-enumerable, or a Proxy's answer) is left to zod.
  if (o.constructor !== Object) return NO;
  const out: Obj = {};
  for (const k of Object.keys(o)) {
    // (zod's record skips "__proto__"; a "constructor" key changes how zod sees the object.)
    if (k === "__proto__" || k === "constructor") return NO;
    const x = o[k];
    if (
      typeof x === "string" ||
      typeof x === "boolean" ||
      x === null ||
      (typeof x === "number" && Number.isFinite(x))
    )
      out[k] = x;
    else return NO;
  }
  return out;
}

const TOOL_CALL_KEYS: ReadonlySet<string> = new Set(["id", "name", "arguments", "argumentsError"]);

/** A tool call (`chatSchemas().toolCall`), or `NO`. */
function toolCall(v: unknown): ToolCall | typeof NO {
  const c = plain(v);
  if (c === null || !onlyKeys(c, TOOL_CALL_KEYS)) return NO;
  const id = c.id;
  const name = c.name;
  if (typeof id !== "string" || typeof name !== "string") return NO;
  const a = c.arguments;
  const args = a === undefined ? {} : flatRecord(a);
  if (args === NO) return NO;
  const argumentsError = nullableString(c.argumentsError);
  if (argumentsError === NO) return NO;
  return { id, name, arguments: args, argumentsError } as ToolCall;
}

/** A list of tool calls (`z.array(toolCall)`), or `NO`. */
function toolCallList(v: unknown): ToolCall[] | typeof NO {
  if (!Array.isArray(v)) return NO;
  const n = v.length;
  const out: ToolCall[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const c = toolCall(v[i]);
    if (c === NO) return NO;
    out[i] = c;
  }
  return out;
}

const USAGE_KEYS: ReadonlySet<string> = new Set(USAGE_TOKEN_KEYS);

/** Usage of numbers only (`chatSchemas().usage`, a loose object), or `NO`. */
function usage(v: unknown): Obj | typeof NO {
  if (v === undefined) return {};
  const u = plain(v);
  if (u === null || !onlyKeys(u, USAGE_KEYS)) return NO;
  const out: Obj = {};
  for (const k of USAGE_TOKEN_KEYS) {
    if (!(k in u)) continue;
    const x = u[k];
    // (A key there with `undefined` stays, as zod's optional key does.)
    if (x !== undefined && !(typeof x === "number" && Number.isFinite(x))) return NO;
    out[k] = x;
  }
  return out;
}

/** Content that is text or absent (`chatSchemas().content` on it), or `NO`. */
function textContent(v: unknown): string | null | typeof NO {
  return nullableString(v);
}

const KEYS = {
  system: new Set(["type", "id", "content"]),
  human: new Set(["type", "id", "content"]),
  ai: new Set([
    "type",
    "id",
    "content",
    "refusal",
    "toolCalls",
    "reasoning",
    "finishReason",
    "usage",
    "responseMetadata",
  ]),
  tool: new Set(["type", "id", "content", "name", "toolCallId", "arguments"]),
} as const satisfies Record<string, ReadonlySet<string>>;

/** A message (`chatSchemas().message`), or `NO`. */
function message(v: unknown): Message | typeof NO {
  const m = plain(v);
  if (m === null) return NO;
  const type = m.type;
  if (type !== "system" && type !== "human" && type !== "ai" && type !== "tool") return NO;
  // zod reads `type` twice (its discriminated union, then the option's literal): a getter that
  // answers otherwise the second time is refused there, so it is left to zod.
  if (m.type !== type) return NO;
  if (!onlyKeys(m, KEYS[type])) return NO;
  const id = nullableString(m.id);
  if (id === NO) return NO;
  const content = textContent(m.content);
  if (content === NO) return NO;
  if (type === "system" || type === "human") return { type, id, content } as Message;
  if (type === "tool") {
    const name = nullableString(m.name);
    const toolCallId = nullableString(m.toolCallId);
    if (name === NO || toolCallId === NO) return NO;
    const a = m.arguments;
    const args = a === undefined || a === null ? null : flatRecord(a);
    if (args === NO) return NO;
    return { type, id, content, name, toolCallId, arguments: args } as Message;
  }
  const refusal = nullableString(m.refusal);
  if (refusal === NO) return NO;
  const calls = m.toolCalls;
  const toolCalls = calls === undefined ? [] : toolCallList(calls);
  if (toolCalls === NO) return NO;
  const r = m.reasoning;
  if (r !== undefined && !(Array.isArray(r) && r.length === 0)) return NO;
  const finishReason = nullableString(m.finishReason);
  if (finishReason === NO) return NO;
  const u = usage(m.usage);
  if (u === NO) return NO;
  const out: Obj = {
    type,
    id,
    content,
    refusal,
    toolCalls,
    reasoning: [],
    finishReason,
    usage: u,
  };
  if ("responseMetadata" in m) {
    const meta = m.responseMetadata;
    const copy = meta === undefined ? undefined : flatRecord(meta);
    if (copy === NO) return NO;
    out.responseMetadata = copy;
  }
  return out as unknown as Message;
}

/**
 * A messages update (`MessagesUpdateSchema`: a message or a list of messages; a list with a
 * `RemoveMessage` is left to zod) parsed as its schema parses it, or `undefined` when it is
 * not one of the plain values this module takes.
 */
export function plainMessagesUpdate(value: unknown): Message | Message[] | undefined {
  if (!Array.isArray(value)) {
    const m = message(value);
    return m === NO ? undefined : m;
  }
  const n = value.length;
  const out: Message[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const m = message(value[i]);
    if (m === NO) return undefined;
    out[i] = m;
  }
  return out;
}

/**
 * A list of tool calls (`z.array(chatSchemas().toolCall)`, with or without its default)
 * parsed as the schema parses it, or `undefined` when it is not one this module takes.
 */
export function plainToolCalls(value: unknown): ToolCall[] | undefined {
  const calls = toolCallList(value);
  return calls === NO ? undefined : calls;
}
