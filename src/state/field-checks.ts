/**
 * The checks a value written to a state field passes (its schema, JSON), and how their errors
 * name the writer (a node, the run input, `updateState`, a `Send` payload).
 */
import type { z } from "zod";
import { StateStoreError, StateUpdateError } from "../errors/index.js";
import { findNonJson, jsonExact } from "../json/index.js";
import { safeParseTwin } from "../zod-cycles.js";
import type { FieldSpec } from "./define-state.js";
import { issueText } from "./issue-text.js";

/** `send`: the value is a `Send`'s payload for `node` (errors say so). */
export function fieldValueOf(spec: FieldSpec, value: unknown, node: string, send = false): unknown {
  return parseOrThrow(spec.schema, value, node, spec.name, "value", send);
}

/** Parse `value` with `schema`, or throw a `StateUpdateError` that names the field, the path and the writer. */
export function parseOrThrow(
  schema: z.ZodType,
  value: unknown,
  node: string,
  field: string,
  what: string,
  send = false,
): unknown {
  const r = safeParseTwin(schema, value);
  if (r.success) return r.data;
  // The texts of an error are built only when there is one (this runs for every field written).
  const writer = send ? describeSend(node) : describeWriter(node);
  const issue = issueText(r.error.issues[0]!, value);
  const where = issue.path.length
    ? ` at ${field}${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`
    : "";
  throw new StateUpdateError(
    `Invalid ${what} for state field "${field}" written by ${writer}${where}: ${issue.message}`,
    { node, field, cause: r.error },
  );
}

/** How errors name the writer of an update. */
export function describeWriter(node: string): string {
  if (node === "__input__") return "the run input";
  // graph.updateState(threadId, update) without asNode.
  if (node === "__update__") return "the update given to updateState";
  // graph.invoke(new Command({ update }), { threadId }).
  if (node === "__command__") return "the Command's update";
  return `node "${node}"`;
}

/** How errors name the payload of a `Send` to `node`. */
export function describeSend(node: string): string {
  return `the Send payload for node "${node}"`;
}

/**
 * Refuse a value that is not JSON, with its path, and give back the value as a stored event
 * is read back (`jsonExact`): a `-0` as `0`, no object key holding `undefined` (a copy only
 * when it holds one of them; the same check's walk finds them). So the state a run goes on
 * from is the one a cold load of its events gives. `send`: a `Send`'s payload for `node`;
 * `what`: what is stored, when it is neither (built only when there is an error to tell).
 */
export function checkJson<T>(
  value: T,
  node: string,
  field: string,
  send = false,
  what?: () => string,
): T {
  const bad = findNonJson(value, field);
  if (bad) {
    const stored = what
      ? what()
      : send
        ? describeSend(node)
        : `the update of ${describeWriter(node)}`;
    throw new StateStoreError(`Cannot store ${stored}: ${bad.path} is not JSON (${bad.problem})`, {
      field: bad.path,
    });
  }
  return jsonExact(value);
}

/** `s` with its first letter in upper case. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
