/**
 * What the plain parse's adversarial tests share: {@link check} (safeParseTwin against the
 * schema's own parse) and makers of messages, tool calls and hidden keys.
 */
import { expect } from "vitest";
import type { z } from "zod";
import { AgentState } from "../agents/agent-state.js";
import { lastParseWasPlain, safeParseTwin } from "../zod-cycles.js";

/** An object read by key. */
export type Obj = Record<PropertyKey, unknown>;

/** Every object reachable from `v` through own data properties. */
function objectsOf(v: unknown, seen = new Set<unknown>()): Set<unknown> {
  if (v !== null && typeof v === "object" && !seen.has(v)) {
    seen.add(v);
    for (const k of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (d !== undefined && "value" in d) objectsOf(d.value, seen);
    }
  }
  return seen;
}

/**
 * `got` (a parse of `input`) holds what `want` holds, key for key in the same order (-0 and
 * `undefined`-valued keys included), and shares no object or array with `input`.
 */
export function expectSameParse(got: unknown, want: unknown, input: unknown): void {
  same(got, want, "value", objectsOf(input));
}

/**
 * `got` holds what `want` holds, key for key in the same order, and none of `shared`. Each check
 * is made in plain code first and given to `expect` only when it fails (the same assertion,
 * which then fails with its message): the adversarial values have objects of 20,000 keys,
 * checked hundreds of times, and an `expect` a key made those tests take a minute.
 */
function same(got: unknown, want: unknown, path: string, shared: Set<unknown>): void {
  if (want === null || typeof want !== "object") {
    if (!Object.is(got, want))
      expect(Object.is(got, want), `${path}: ${String(got)} vs ${String(want)}`).toBe(true);
    return;
  }
  if (typeof got !== "object") expect(typeof got, path).toBe("object");
  if (shared.has(got)) expect(shared.has(got), `${path} is shared with the value`).toBe(false);
  if (Array.isArray(got) !== Array.isArray(want))
    expect(Array.isArray(got), path).toBe(Array.isArray(want));
  if (Object.getPrototypeOf(got) !== Object.getPrototypeOf(want))
    expect(Object.getPrototypeOf(got), path).toBe(Object.getPrototypeOf(want));
  const gotKeys = Reflect.ownKeys(got as object);
  const wantKeys = Reflect.ownKeys(want);
  if (gotKeys.length !== wantKeys.length || gotKeys.some((k, i) => k !== wantKeys[i]))
    expect(gotKeys, path).toEqual(wantKeys);
  for (const k of Object.keys(want))
    same((got as Obj)[k], (want as Obj)[k], `${path}.${k}`, shared);
}

/**
 * safeParseTwin against the schema's own parse (the same success; the same data, key for key,
 * sharing nothing with `v`): "plain" or "zod" for who answered.
 */
export function check(schema: z.ZodType, v: unknown): "plain" | "zod" {
  const zod = schema.safeParse(v);
  const twin = safeParseTwin(schema, v);
  const plain = lastParseWasPlain();
  expect(twin.success, "the same success").toBe(zod.success);
  if (zod.success) same(twin.data, zod.data, "value", objectsOf(v));
  return plain ? "plain" : "zod";
}

/** AgentState's toolCalls schema. */
export const toolCallsSchema = (): z.ZodType => AgentState.fields.get("toolCalls")!.schema;
/** An AI message with `extra`. */
export const ai = (extra: object): Obj => ({ type: "ai", id: null, content: "x", ...extra });
/** A tool call with `extra`. */
export const call = (extra: object): Obj => ({ id: "a", name: "b", ...extra });
/** `o` with a non-enumerable `key`. */
export const hidden = (o: object, key: string, value: unknown): Obj =>
  Object.defineProperty(o, key, { value, enumerable: false }) as Obj;
