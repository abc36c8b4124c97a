/**
 * Schemas built without zod's cycle memoizer, for nodestep's own parse of the updates its
 * engine applies (a messages update on every model and tool step).
 *
 * zod 4.6 gives a container schema whose subtree holds a cycle (any schema with `z.json()`: a
 * tool call's arguments, a message's usage) cycle support: each parse of it keeps a map of
 * the objects it has met, so that a value that refers to itself parses (to a value that does
 * too) instead of recursing until the stack runs out. That map costs a few allocations per
 * object parsed, about a twentieth of what an agent turn allocates. A twin of such a schema,
 * the same schema built again by {@link buildWithoutCycleMemo}, has none: on a value with a
 * cycle its parse throws a `RangeError` (as every schema of zod 4.5 did), and
 * {@link safeParseTwin} then parses with the schema itself. So every value parses to what the
 * schema gives (the same data; objects the value shares are copied once each instead of
 * shared), and the schemas users see (`MessagesUpdateSchema`, `AgentState`'s fields) are
 * zod's own, with cycle support.
 *
 * @module
 */
import type { z } from "zod";
import { zod } from "./zod-runtime.js";

/** zod's memoizer setting (`z.config({ memoizer })`, zod 4.6's `$ZodMemoizer`). */
type Memoizer = NonNullable<Parameters<typeof z.config>[0]>["memoizer"];

/** The memoizer that gives no cycle support: each container parses as without one. */
const NO_MEMO: Memoizer = {
  attach() {},
  guard() {},
  alloc: <T extends object>(_inst: unknown, _payload: unknown, empty: T): T => empty,
};

/**
 * `build()` with zod's memoizer off: the schemas it makes (and the `z.json()` schemas among
 * them, once each was resolved inside `build`, say by a parse) keep no map of the objects
 * they parse. The global setting is restored before this returns (nothing else runs
 * meanwhile: `build` is synchronous).
 */
export function buildWithoutCycleMemo<T>(build: () => T): T {
  const z = zod();
  const saved = z.config().memoizer;
  z.config({ memoizer: NO_MEMO });
  try {
    return build();
  } finally {
    z.config({ memoizer: saved });
  }
}

/** A schema's twin, and its parse without zod for the plain values it takes (or `null`). */
interface Twin {
  twin: z.ZodType;
  plain: ((value: unknown) => unknown) | null;
}

/** The twin of each schema that has one. */
const twins = new WeakMap<z.ZodType, Twin>();

/**
 * Record `twin`, `original` built again by {@link buildWithoutCycleMemo}, for
 * {@link safeParseTwin}; and `plain`, when given: what `twin` parses a value to, computed
 * without zod, or `undefined` for a value it leaves to `twin` (src/chat/plain-parse.ts; an
 * agent step's messages and tool calls parse there without zod's allocations).
 */
export function registerTwin(
  original: z.ZodType,
  twin: z.ZodType,
  plain: ((value: unknown) => unknown) | null = null,
): void {
  twins.set(original, { twin, plain });
}

/** Whether the last {@link safeParseTwin} answered from a plain parse. */
let plainLast = false;

/**
 * Whether the value the last {@link safeParseTwin} call gave was made by the schema's plain
 * parse: a deep copy of plain objects, arrays and primitives that shares nothing with the
 * value parsed (a zod parse may keep parts of it, `z.custom()`'s say). Read it right after
 * the call (nothing runs in between: the parse is synchronous); it tells of that call's
 * value, not of a call the schema's own checks or transforms made inside it.
 */
export function lastParseWasPlain(): boolean {
  return plainLast;
}

/**
 * `schema.safeParse(value)`, parsed by the schema's plain parse when it takes the value, else
 * by its twin when it has one; when the twin's parse throws (a value with a cycle), by
 * `schema` itself.
 * @throws what `schema.safeParse` throws (an asynchronous refinement, say).
 */
export function safeParseTwin(
  schema: z.ZodType,
  value: unknown,
): ReturnType<z.ZodType["safeParse"]> {
  // The flag is set after the parse: a schema's own checks and transforms may call this
  // function for an inner value, and the flag tells of the outer one.
  plainLast = false;
  const found = twins.get(schema);
  let r: ReturnType<z.ZodType["safeParse"]>;
  if (found === undefined) r = schema.safeParse(value);
  else {
    const { twin, plain } = found;
    const data = plain !== null ? plain(value) : undefined;
    if (data !== undefined) {
      plainLast = true;
      return { success: true, data };
    }
    try {
      r = twin.safeParse(value);
    } catch {
      r = schema.safeParse(value);
    }
  }
  plainLast = false;
  return r;
}
