/**
 * Helpers shared by the agent nodes (not exported from the package).
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import type { ReasoningOptions } from "../chat/parts.js";
import { GraphConfigError, ValueError } from "../errors/index.js";
import type { NodeContext } from "../graph/context.js";
import { isPlainObject } from "../json/index.js";
import { addMessages, type RemoveMessage } from "../state/add-messages.js";
import type { StateDefinition } from "../state/define-state.js";
import type { AnyTool } from "../tools/types.js";

export type { AnyTool };

const EFFORTS = ["minimal", "low", "medium", "high"];

/**
 * Check a `reasoning` option: `null`/absent, `{ effort }` with one of the four efforts, or
 * `{ budgetTokens }` with a positive integer, and no other key.
 * @returns the option, or `null` when absent.
 * @throws ValueError naming what is wrong.
 */
export function checkReasoning(owner: string, value: unknown): ReasoningOptions | null {
  if (value === undefined || value === null) return null;
  const got = JSON.stringify(value) ?? String(value);
  const bad = (what: string) =>
    new ValueError(
      `${owner}: reasoning must be { effort: "minimal" | "low" | "medium" | "high" } or { budgetTokens: <positive integer> }; ${what}, got ${got}`,
    );
  if (typeof value !== "object" || Array.isArray(value)) throw bad("it is not an object");
  const keys = Object.keys(value);
  if (keys.length !== 1) throw bad("it needs exactly one key");
  const v = value as { effort?: unknown; budgetTokens?: unknown };
  if (keys[0] === "effort") {
    if (typeof v.effort !== "string" || !EFFORTS.includes(v.effort))
      throw bad("the effort is not one of them");
    return { effort: v.effort as "minimal" };
  }
  if (keys[0] === "budgetTokens") {
    if (!Number.isSafeInteger(v.budgetTokens) || (v.budgetTokens as number) < 1)
      throw bad("budgetTokens is not a positive integer");
    return { budgetTokens: v.budgetTokens as number };
  }
  throw bad(`"${keys[0]}" is neither effort nor budgetTokens`);
}

/**
 * Check a tool list: every entry a tool, no tool listed twice, no two tools with one name.
 * @returns the tools by name.
 * @throws TypeError for an entry that is not a tool; GraphConfigError for a duplicate.
 */
export function checkToolList(
  owner: string,
  tools: unknown,
  node: string | undefined,
): Map<string, AnyTool> {
  if (!Array.isArray(tools)) {
    throw new TypeError(`${owner}: tools must be an array of tools made with tool()`);
  }
  const byName = new Map<string, AnyTool>();
  tools.forEach((t: unknown, i: number) => {
    if (
      typeof t !== "object" ||
      t === null ||
      (t as { kind?: unknown }).kind !== "tool" ||
      typeof (t as { name?: unknown }).name !== "string"
    ) {
      throw new TypeError(`${owner}: tools[${i}] is not a tool; make tools with tool()`);
    }
    const tool = t as AnyTool;
    const seen = byName.get(tool.name);
    if (seen === tool) {
      throw new GraphConfigError(
        `${owner}: tool "${tool.name}" is listed twice; list each tool once`,
        { node },
      );
    }
    if (seen) {
      throw new GraphConfigError(
        `${owner}: two different tools are named "${tool.name}"; tool names must be unique`,
        { node },
      );
    }
    byName.set(tool.name, tool);
  });
  return byName;
}

/**
 * The run-time checks of an agent node on the graph's state definition. Skipped for a
 * plain-object state (`ctx.stateSchema === null`).
 *
 * @throws GraphConfigError when `messagesField` is not declared or does not use `addMessages`,
 *   or one of `written` is not declared.
 */
export function checkStateFields(
  kind: string,
  ctx: NodeContext,
  messagesField: string,
  written: readonly { option: string; field: string }[],
): void {
  const def = ctx.stateSchema;
  if (def === null) return;
  const spec = def.fields.get(messagesField);
  if (!spec) {
    throw new GraphConfigError(
      `${where(kind, ctx)}: its messages field "${messagesField}" is not declared in the graph's state (declared fields: ${declaredFields(def)}); declare it with messagesField() or set messagesField`,
      { graph: ctx.graphName, node: ctx.node },
    );
  }
  if (spec.reducer !== (addMessages as unknown)) {
    throw new GraphConfigError(
      `${where(kind, ctx)}: its messages field "${messagesField}" does not use addMessages; declare it with messagesField()`,
      { graph: ctx.graphName, node: ctx.node },
    );
  }
  for (const { option, field } of written) {
    if (!def.fields.has(field)) {
      throw new GraphConfigError(
        `${where(kind, ctx)} writes state field "${field}" (${option}), which the graph's state does not declare (declared fields: ${declaredFields(def)}); declare it or set ${option}`,
        { graph: ctx.graphName, node: ctx.node },
      );
    }
  }
}

/** How errors name the node (built only when there is an error: this runs on every call). */
function where(kind: string, ctx: NodeContext): string {
  return `${kind} "${ctx.node}" of graph "${ctx.graphName}"`;
}

/** The fields `def` declares, for errors (not a closure per check: see `badCall` in model-response.ts). */
function declaredFields(def: StateDefinition): string {
  return [...def.fields.keys()].join(", ");
}

/** The messages of `field` in a state, checked to be an array. */
export function readMessages(
  kind: string,
  ctx: NodeContext,
  state: unknown,
  field: string,
): Message[] {
  const value = isPlainObject(state) ? state[field] : undefined;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new GraphConfigError(
      `${kind} "${ctx.node}" of graph "${ctx.graphName}": state field "${field}" must hold a list of messages, got ${typeof value}`,
      { graph: ctx.graphName, node: ctx.node },
    );
  }
  return value as Message[];
}

/**
 * The update that appends `added` (messages and `RemoveMessage` markers) to the messages
 * field: the list itself for a declared state (its `addMessages` reducer merges it), the whole
 * merged list for a plain-object state (last write wins).
 */
export function appendMessages(
  ctx: NodeContext,
  current: readonly Message[],
  added: Array<Message | RemoveMessage>,
): Array<Message | RemoveMessage> {
  return ctx.stateSchema === null ? addMessages(current, added) : added;
}

/** The type name of an error, as `"Tool error: <type>: <message>"` shows it. */
export function errorTypeName(error: unknown): string {
  if (error instanceof Error) {
    if (typeof error.name === "string" && error.name !== "" && error.name !== "Error")
      return error.name;
    const ctorName = (error.constructor as { name?: unknown } | undefined)?.name;
    return typeof ctorName === "string" && ctorName !== "" ? ctorName : "Error";
  }
  return "Error";
}

/** The message of an error, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether two JSON values are equal (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}
