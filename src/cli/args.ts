/**
 * How the CLI reads its arguments: `--prices` files, integers, `--answer` values and `--input`
 * objects. Each mistake is a `UsageError` (exit 2) saying what was wrong.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import type { JsonValue } from "../json/index.js";
import { checkPrices, type PriceTable } from "../middleware/prices.js";
import { UsageError } from "./load.js";

/** The price table of `--prices <file>` (run, resume, serve), read and checked; `UsageError` saying what is wrong. */
export function readPrices(file: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`--prices: cannot read ${file}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--prices: ${file} is not JSON: ${(e as Error).message}`);
  }
  try {
    return checkPrices(json, `--prices ${file}`);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** A commander parser of an integer ≥ `min` for option `name`. */
export function positiveInt(name: string, min: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
      throw new UsageError(`${name} must be an integer ≥ ${min}, got ${JSON.stringify(text)}`);
    }
    return n;
  };
}

/** A commander collector: a repeatable option's values, in order. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** An answer's value: JSON when it parses (`true`, `42`, `{"a":1}`, `"text"`), else the text itself. */
export function parseAnswer(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * `--input`'s JSON object.
 * @throws UsageError naming `what` when the text is not JSON or not an object.
 * @example parseJsonObject('{"count": 1}', "--input") // { count: 1 }
 */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} is not JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object, like '{"count": 1}'`);
  }
  return value as Record<string, unknown>;
}
