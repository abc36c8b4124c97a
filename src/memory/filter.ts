/**
 * Filters of `list` and `search`: checked once, then a test of each value. Internal: the
 * stores import it, users do not.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import { findNonJson, isPlainObject, type JsonObject, type JsonValue } from "../json/index.js";
import type { MemoryFilter } from "./types.js";

const OPS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);

/** A checked filter: a test of a value. */
export type ValueTest = (value: JsonObject) => boolean;

/** Read a field path (`"a.b"`) of a value; `undefined` when missing. */
export function readPath(value: JsonValue, path: string): JsonValue | undefined {
  if (path === "$") return value;
  let at: JsonValue | undefined = value;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object" || Array.isArray(at)) return undefined;
    at = Object.hasOwn(at, part) ? (at as JsonObject)[part] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every(
    (k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]),
  );
}

function compare(op: string, field: JsonValue | undefined, target: unknown): boolean {
  if (op === "$eq") return field !== undefined && jsonEqual(field, target);
  if (op === "$ne") return field === undefined || !jsonEqual(field, target);
  const bothNumbers = typeof field === "number" && typeof target === "number";
  const bothStrings = typeof field === "string" && typeof target === "string";
  if (!bothNumbers && !bothStrings) return false;
  const a = field as number | string;
  const b = target as number | string;
  if (op === "$gt") return a > b;
  if (op === "$gte") return a >= b;
  if (op === "$lt") return a < b;
  return a <= b;
}

/**
 * Check a filter and build its test, or `null` for no filter.
 * @throws MemoryStoreError for a filter that is not an object, an unknown `$` operator, or a non-JSON operand.
 */
export function compileFilter(filter: MemoryFilter | undefined, op: string): ValueTest | null {
  if (filter === undefined || filter === null) return null;
  if (!isPlainObject(filter)) {
    throw new MemoryStoreError(
      `${op}: filter must be an object of field paths, got ${typeof filter}`,
    );
  }
  const bad = findNonJson(filter, "filter");
  if (bad) throw new MemoryStoreError(`${op}: filter is not JSON at ${bad.path}: ${bad.problem}`);
  const tests: ValueTest[] = [];
  for (const [path, cond] of Object.entries(filter)) {
    if (path === "") throw new MemoryStoreError(`${op}: filter has an empty field path`);
    const keys = isPlainObject(cond) ? Object.keys(cond) : [];
    const isOps = keys.length > 0 && keys.every((k) => k.startsWith("$"));
    if (isOps) {
      for (const k of keys) {
        if (!OPS.has(k)) {
          throw new MemoryStoreError(
            `${op}: filter field "${path}" has unknown operator ${k}; use $eq, $ne, $gt, $gte, $lt or $lte`,
          );
        }
      }
      const ops = cond as Record<string, unknown>;
      tests.push((v) => {
        const field = readPath(v, path);
        return keys.every((k) => compare(k, field, ops[k]));
      });
    } else {
      tests.push((v) => {
        const field = readPath(v, path);
        return field !== undefined && jsonEqual(field, cond);
      });
    }
  }
  return (v) => tests.every((t) => t(v));
}
