/**
 * The `rewriteHistory` hook: running it over a run's middleware, and turning a rewritten
 * conversation into the messages-field update that makes it (removals, then the new tail).
 *
 * @module
 */
import type { Message } from "../chat/messages.js";
import { ValueError } from "../errors/index.js";
import { isPlainObject } from "../json/index.js";
import { RemoveMessage } from "../state/add-messages.js";
import { describe } from "../tools/tool.js";
import { middlewareName } from "./run-hooks.js";
import type { ModelMiddlewareContext } from "./types.js";

type Hook = (this: unknown, history: readonly Message[], ctx: ModelMiddlewareContext) => unknown;

function isMessageList(value: unknown): value is Message[] {
  return (
    Array.isArray(value) &&
    value.every(
      (m: unknown) =>
        isPlainObject(m) &&
        (m.type === "system" || m.type === "human" || m.type === "ai" || m.type === "tool"),
    )
  );
}

/** Whether any of `middleware` has a `rewriteHistory` hook (the model node skips the await without one). */
export function hasRewriteHistory(middleware: readonly unknown[]): boolean {
  for (const mw of middleware) {
    if (
      typeof mw === "object" &&
      mw !== null &&
      typeof (mw as { rewriteHistory?: unknown }).rewriteHistory === "function"
    )
      return true;
  }
  return false;
}

/**
 * Run every `rewriteHistory` hook in order, each seeing what the previous one returned.
 *
 * @param middleware - the run's middleware (`ctx.middleware`).
 * @param history - the conversation as stored.
 * @returns the rewritten conversation, or `null` when no hook changed it.
 * @throws TypeError when a hook returns something that is not an array of messages. Errors
 *   thrown by hooks propagate.
 * @example const rewritten = await runRewriteHistory(ctx.middleware, history, mctx);
 */
export async function runRewriteHistory(
  middleware: readonly unknown[],
  history: readonly Message[],
  ctx: ModelMiddlewareContext,
): Promise<Message[] | null> {
  let current: Message[] | null = null;
  for (let i = 0; i < middleware.length; i++) {
    const mw = middleware[i];
    if (typeof mw !== "object" || mw === null) continue;
    const hook = (mw as { rewriteHistory?: unknown }).rewriteHistory;
    if (typeof hook !== "function") continue;
    const r: unknown = await (hook as Hook).call(mw, current ?? history, ctx);
    if (r === undefined || r === null) continue;
    if (!isMessageList(r)) {
      throw new TypeError(
        `middleware ${middlewareName(mw, i)} rewriteHistory returned ${describe(r)}, not an array of messages; return the new conversation, or nothing to keep it`,
      );
    }
    current = r;
  }
  return current;
}

/**
/** The same message: the same object, or the same id and the same JSON. */
function sameMessage(a: Message, b: Message): boolean {
  return a === b || (a.id !== null && a.id === b.id && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * The messages-field update that turns `before` into `after` under `addMessages`: the
 * messages both share at the start (the same object, or the same id and JSON) stay; every later message of `before` is removed (a
 * `RemoveMessage`), then every later message of `after` is appended (a kept message comes
 * back with its id, after the removals). Nothing for equal lists.
 *
 * @throws ValueError when a message to remove has no id (stored messages always have one).
 * @example historyChange([a, b, c], [a, summary, c]) // [RemoveMessage(b.id), RemoveMessage(c.id), summary, c]
 */
export function historyChange(
  before: readonly Message[],
  after: readonly Message[],
): Array<Message | RemoveMessage> {
  let same = 0;
  while (
    same < before.length &&
    same < after.length &&
    sameMessage(before[same] as Message, after[same] as Message)
  ) {
    same++;
  }
  if (same === before.length && same === after.length) return [];
  const out: Array<Message | RemoveMessage> = [];
  for (let i = same; i < before.length; i++) {
    const id = before[i]?.id;
    if (typeof id !== "string" || id === "") {
      throw new ValueError(
        `rewriteHistory: the ${before[i]?.type} message at index ${i} has no id, so it cannot be removed; stored messages get one from addMessages`,
      );
    }
    out.push(RemoveMessage(id));
  }
  for (let i = same; i < after.length; i++) out.push(after[i] as Message);
  return out;
}
