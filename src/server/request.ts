/**
 * Reading a request of the server's API: path parameters, query parameters and JSON bodies,
 * each checked, with a 4xx `HttpError` naming what was wrong.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { z } from "zod";
import { MAX_JSON_DEPTH, prototypeKey, tooDeep } from "../json/index.js";
import { HttpError } from "./errors.js";
import { Id } from "./request-schemas.js";

/** A path parameter that must be an id (`Id`): 400 `InvalidRequest` otherwise. */
export function param(c: Context, name: string): string {
  const value = c.req.param(name) ?? "";
  const checked = Id.safeParse(value);
  if (!checked.success) {
    throw new HttpError(400, "InvalidRequest", `${name}: ${checked.error.issues[0]?.message}`);
  }
  return value;
}

/**
 * A query parameter that must be an integer from `min` to `max` (no upper bound without
 * one), or `undefined` when absent.
 * @throws HttpError 400 `InvalidRequest`: `limit must be an integer from 1 to 1000, got "0"`
 *   (or `… must be an integer ≥ 0, got "x"` without `max`).
 */
export function count(
  value: string | undefined,
  name: string,
  min: number,
  max?: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]{1,15}$/.test(value) || n < min || (max !== undefined && n > max)) {
    throw new HttpError(
      400,
      "InvalidRequest",
      max === undefined
        ? `${name} must be an integer ≥ ${min}, got "${value}"`
        : `${name} must be an integer from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

/**
 * A route's middleware that refuses query parameters other than `allowed` (400
 * `InvalidRequest` naming the first unknown one and the route's own), as unknown body fields
 * are refused: `GET …/metrics?branch=x` must not answer for `main`. A parameter given more
 * than once (`?limit=1&limit=2`) is refused too (400 `InvalidRequest`: `Query parameter
 * "limit" is given 2 times: GET /api/threads takes one value of each`), where the route
 * would read only one of them.
 *
 * @example
 * ```ts
 * app.get("/api/threads/:threadId/usage", onlyQuery("branchId"), async (c) => …);
 * ```
 */
export function onlyQuery(...allowed: string[]): MiddlewareHandler {
  const known = new Set(allowed);
  return async (c, next) => {
    const params = new URL(c.req.url).searchParams;
    for (const name of params.keys()) {
      const route = `${c.req.method} ${routePath(c)}`;
      if (known.has(name)) {
        const times = params.getAll(name).length;
        if (times === 1) continue;
        throw new HttpError(
          400,
          "InvalidRequest",
          `Query parameter "${name}" is given ${times} times: ${route} takes one value of each`,
        );
      }
      throw new HttpError(
        400,
        "InvalidRequest",
        `Unknown query parameter "${name}": ${route} takes ${
          allowed.length === 0 ? "no query parameters" : allowed.join(", ")
        }`,
      );
    }
    await next();
  };
}

/** A query parameter, or `undefined` when absent; 400 `InvalidRequest` when empty. */
export function query(c: Context, name: string): string | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  if (value === "") throw new HttpError(400, "InvalidRequest", `${name} must not be empty`);
  if (name === "branchId") {
    const problem = branchIdProblem(value);
    if (problem !== null) throw new HttpError(400, "InvalidRequest", `branchId: ${problem}`);
  }
  return value;
}

/**
 * What is wrong with a branch id given in a query (the rule of ids in a run's body: 1 to 200
 * characters, no `/`, no control characters), or `null`. Every route's `branchId` query is checked by it
 * (`query`): unchecked, one answered 404 or, on the runs list, 200 with no runs.
 */
export function branchIdProblem(branchId: string): string | null {
  if (branchId.length > 200) return `at most 200 characters, got ${branchId.length}`;
  if (branchId.includes("/") || /\p{Cc}/u.test(branchId)) {
    return "must not contain '/' or control characters";
  }
  return null;
}

/** Parse a JSON request body against a schema: 415, 400 InvalidJson or 400 InvalidRequest. */
export async function readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(
      415,
      "UnsupportedMediaType",
      "Send the request body as JSON, with Content-Type: application/json",
    );
  }
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new HttpError(
        400,
        "InvalidJson",
        `The request body is not JSON: ${(e as Error).message}`,
      );
    }
  }
  // Checked before the schema: a schema would drop prototype keys silently, and walk deep
  // data recursively (a stack overflow).
  if (tooDeep(value, MAX_JSON_DEPTH) !== null) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `The request body is nested deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
    );
  }
  const key = prototypeKey(value);
  if (key !== null) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `${key}: the keys __proto__, constructor and prototype are not accepted`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`,
    );
    throw new HttpError(400, "InvalidRequest", problems.join("; "));
  }
  return parsed.data;
}
