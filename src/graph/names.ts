/**
 * The names a node and a graph may have, and their checks.
 *
 * @module
 */
import { GraphConfigError } from "../errors/index.js";

/**
 * The pattern of a node's name and of a graph's name: 1 to 64 ASCII letters, digits, `_`, `-`
 * and `.`, not starting with `-` or `.` (`"plan"`, `"call_model"`, `"step-2"`, `"v1.fetch"`).
 * The characters left out have a meaning where names appear: `/` joins a subgraph's name to
 * its nodes' in events and breakpoints (`"research/search"`) and in node cache keys, `:` and
 * `@` join the parts of a subgraph's child thread ids (a subgraph's name is its node's), and a
 * name without spaces or quotes stays one word in logs, CLI output and URLs. LangGraph refuses
 * only `|` and `:`; a name valid there and not here can be written with `_`
 * (`"write report"` → `"write_report"`).
 */
export const NODE_NAME_PATTERN: RegExp = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** The names nodestep keeps for itself: no node may have one. */
export const RESERVED_NODE_NAMES: ReadonlySet<string> = new Set([
  "__start__",
  "__end__",
  "__input__",
  "__send__",
]);

function describeName(name: string): string {
  return JSON.stringify(name);
}

/**
 * Check a node's name (given as `options.name` or taken from the function).
 * @throws TypeError when there is no name or it is not a string; GraphConfigError (its `node`
 *   the name) when the name is empty, reserved or does not match {@link NODE_NAME_PATTERN}.
 */
export function checkNodeName(name: unknown, given: boolean): string {
  if (name === undefined || (!given && name === "")) {
    throw new TypeError(
      'node(fn): the function has no name; pass one as node(fn, { name: "..." })',
    );
  }
  if (typeof name !== "string") {
    throw new TypeError(
      `node(fn): name must be a string, got ${name === null ? "null" : typeof name}`,
    );
  }
  if (name === "") {
    throw new GraphConfigError('node(fn, { name: "" }): the name is empty', { node: name });
  }
  if (RESERVED_NODE_NAMES.has(name)) {
    throw new GraphConfigError(`node(fn): ${describeName(name)} is a reserved name`, {
      node: name,
    });
  }
  if (!NODE_NAME_PATTERN.test(name)) {
    throw new GraphConfigError(
      `node ${describeName(name)}: invalid name; a node name is 1 to 64 letters, digits, "_", "-" and "." (not first), matching ${NODE_NAME_PATTERN.source}`,
      { node: name },
    );
  }
  return name;
}

/**
 * A graph's name is a label, shown in errors, events, the CLI and the server's `/api`: 1 to 128
 * characters, not blank, with no control characters (no line breaks or tabs). Unlike a node's
 * name it may have spaces and `/` (`"chat on gpt-4o"`); where it is part of a key (node cache
 * entries) it is URI-encoded.
 */
export const MAX_GRAPH_NAME_LENGTH = 128;

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * Check a graph's `name` option (see {@link MAX_GRAPH_NAME_LENGTH}).
 * @throws TypeError when it is not a string, blank, longer than 128 characters or has a control
 *   character.
 */
export function checkGraphName(name: unknown): void {
  if (name === undefined) return;
  if (typeof name !== "string") {
    throw new TypeError(
      `new Graph(state, options): name must be a string, got ${name === null ? "null" : typeof name}`,
    );
  }
  if (name.trim() === "" || name.length > MAX_GRAPH_NAME_LENGTH || hasControlCharacter(name)) {
    throw new TypeError(
      `new Graph(state, options): invalid name ${describeName(name.slice(0, 140))}; a graph name is 1 to ${MAX_GRAPH_NAME_LENGTH} characters, not blank, without control characters`,
    );
  }
}
