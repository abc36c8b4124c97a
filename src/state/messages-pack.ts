/**
 * How a snapshot keeps the whole message list of a messages field: each message as one array,
 * its type then its values in schema order, the trailing ones that hold their default (`null`,
 * `[]`, `{}`) left out. `["ai", "id-1", "Hello"]` is the `AIMessage` whose other keys hold
 * their defaults.
 *
 * A snapshot is read by every new process that opens a long thread, and most of its text is
 * the messages: without the keys, the text is about 40 % shorter, and `JSON.parse` makes no
 * key lookups and no empty lists and objects for it (6,640 messages: about 4 ms where the
 * objects with their keys took about 9, the list made whole again included).
 *
 * Only a list in which every message has exactly its type's keys, in schema order (what
 * `MessageSchema` gives), is packed; any other list is kept as it is ({@link packMessages}
 * returns `null`), so that unpacking gives back the same objects, key for key.
 *
 * @module
 */

import type { JsonValue } from "../json/index.js";
import { isDefault, MESSAGE_KEYS } from "./messages-codec.js";

type Obj = { [key: string]: JsonValue };

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The types {@link unpackMessages} makes whole (each with its keys written out there). */
export const PACKED_MESSAGE_TYPES: ReadonlySet<string> = new Set(["human", "system", "tool", "ai"]);

/**
 * Which value of a packed message is which: each packed type's keys in order, as
 * `MESSAGE_KEYS` gives them (`"human:id,content|system:id,content|tool:…|ai:…"`). A snapshot
 * keeps it with its packed fields, and a reader unpacks only what was packed with the same
 * layout: the values are known by position, so a version whose message types have other keys
 * would read them as the wrong keys.
 */
export const PACKED_LAYOUT: string = [...PACKED_MESSAGE_TYPES]
  .map((type) => `${type}:${(MESSAGE_KEYS[type] ?? []).map(([key]) => key).join(",")}`)
  .join("|");

/** One message as an array, or `null` when its keys are not exactly its type's, in order. */
function packMessage(m: JsonValue): JsonValue[] | null {
  if (!isObj(m) || typeof m.type !== "string" || !PACKED_MESSAGE_TYPES.has(m.type)) return null;
  const keys = MESSAGE_KEYS[m.type];
  if (keys === undefined) return null;
  const own = Object.keys(m);
  if (own[0] !== "type") return null;
  const out: JsonValue[] = [m.type];
  let k = 1;
  for (let i = 0; i < keys.length; i++) {
    const [key, d] = keys[i]!;
    if (own[k] !== key) {
      // Only an optional key may be missing (and nothing after it: it is the type's last).
      if (d === "optional") break;
      return null;
    }
    const v = m[key];
    k++;
    // A key that holds `undefined` (a message a node wrote as a plain object, kept as it is in
    // the run's own position) is not in the JSON the store holds: an optional one is as if
    // absent; any other the store gives without its key, which unpacking would put back.
    if (v === undefined) {
      if (d === "optional") break;
      return null;
    }
    out.push(v);
  }
  if (k !== own.length) return null;
  // Trailing defaults left out (an optional key present is never left out).
  let end = out.length;
  while (end > 1) {
    const d = keys[end - 2]![1];
    if (d === "optional" || !isDefault(out[end - 1]!, d)) break;
    end--;
  }
  out.length = end;
  return out;
}

/**
 * A messages field's value as a snapshot keeps it (see the module comment), or `null` when it
 * is not a list of messages that each have exactly their type's keys in schema order.
 */
export function packMessages(value: JsonValue): JsonValue[] | null {
  if (!Array.isArray(value)) return null;
  const out: JsonValue[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const packed = packMessage(value[i]!);
    if (packed === null) return null;
    out[i] = packed;
  }
  return out;
}

function tooLong(i: number, type: string): TypeError {
  return new TypeError(
    `packed messages: item ${i} has more values than a ${type} message has keys`,
  );
}

/**
 * The message list {@link packMessages} packed, made whole: every key of each type, in schema
 * order, defaults filled in.
 * @throws TypeError when an item is not a packed message: not a list, no known type, more
 *   values than its type has keys (a damaged snapshot).
 */
export function unpackMessages(packed: JsonValue): JsonValue[] {
  if (!Array.isArray(packed)) throw new TypeError("packed messages: not a list");
  const out: JsonValue[] = new Array(packed.length);
  // (Indexed loops, one object literal per type, no call per key: a new process unpacks
  // thousands of messages before the JIT has compiled this, and a call per key doubled it.)
  for (let i = 0; i < packed.length; i++) {
    const a = packed[i];
    if (!Array.isArray(a)) throw new TypeError(`packed messages: item ${i} is not a list`);
    const n = a.length;
    const type = a[0];
    const id = n > 1 ? a[1]! : null;
    switch (type) {
      case "human":
      case "system":
        if (n > 3) throw tooLong(i, type);
        out[i] = { type, id, content: n > 2 ? a[2]! : null };
        break;
      case "tool":
        if (n > 6) throw tooLong(i, type);
        if (n === 5) {
          // (The usual length: a result with its call's name and id; see "ai" below.)
          out[i] = { type, id, content: a[2]!, name: a[3]!, toolCallId: a[4]!, arguments: null };
          break;
        }
        out[i] = {
          type,
          id,
          content: n > 2 ? a[2]! : null,
          name: n > 3 ? a[3]! : null,
          toolCallId: n > 4 ? a[4]! : null,
          arguments: n > 5 ? a[5]! : null,
        };
        break;
      case "ai": {
        if (n > 9) throw tooLong(i, type);
        // The usual lengths (3: an answer; 5: with tool calls; 8: with its finish reason and
        // usage) as one literal each whose defaults are constants (a fresh `[]` and `{}`):
        // a value chosen by a condition for every key took about twice as long in a new process
        // (the interpreter stores each such key on its own; this is one copy of a template).
        if (n === 3) {
          out[i] = {
            type,
            id,
            content: a[2]!,
            refusal: null,
            toolCalls: [],
            reasoning: [],
            finishReason: null,
            usage: {},
          };
          break;
        }
        if (n === 5) {
          out[i] = {
            type,
            id,
            content: a[2]!,
            refusal: a[3]!,
            toolCalls: a[4]!,
            reasoning: [],
            finishReason: null,
            usage: {},
          };
          break;
        }
        if (n === 8) {
          out[i] = {
            type,
            id,
            content: a[2]!,
            refusal: a[3]!,
            toolCalls: a[4]!,
            reasoning: a[5]!,
            finishReason: a[6]!,
            usage: a[7]!,
          };
          break;
        }
        const whole: Obj = {
          type,
          id,
          content: n > 2 ? a[2]! : null,
          refusal: n > 3 ? a[3]! : null,
          toolCalls: n > 4 ? a[4]! : [],
          reasoning: n > 5 ? a[5]! : [],
          finishReason: n > 6 ? a[6]! : null,
          usage: n > 7 ? a[7]! : {},
        };
        if (n > 8) whole.responseMetadata = a[8]!;
        out[i] = whole;
        break;
      }
      default:
        throw new TypeError(`packed messages: item ${i} has no known message type`);
    }
  }
  return out;
}
