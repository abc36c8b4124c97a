/**
 * `TodoMiddleware`: a todo list the model writes and updates through tools, kept in the
 * thread's messages and shown to the model before each call.
 *
 * @module
 */

import { type Message, SystemMessage } from "../chat/messages.js";
import { textOf } from "../chat/parts.js";
import type { ChatRequest } from "../chat/types.js";
import { isPlainObject } from "../json/index.js";
import { memo } from "../lazy.js";
import { tool } from "../tools/tool.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import { zod } from "../zod-runtime.js";
import type { Middleware, ModelMiddlewareContext } from "./types.js";

/** Status of a {@link Todo}. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** One item of the todo list. `id` counts from 1 in the order `write_todos` gave the items. */
export interface Todo {
  id: number;
  content: string;
  status: TodoStatus;
}

/** Options of {@link TodoMiddleware}. */
export interface TodoOptions {
  /** State field of the conversation the list is read from; default `"messages"`. */
  messagesField?: string;
  /**
   * Text put before the list in the note shown to the model (and shown alone while the list is
   * empty); `null` shows no note while the list is empty. Default {@link TODO_INSTRUCTIONS}.
   */
  instructions?: string | null;
}

/** The middleware made by {@link TodoMiddleware}. */
export interface TodoMiddleware extends Middleware {
  readonly name: "TodoMiddleware";
  /** Adds the note with the current list after the request's leading system messages. */
  beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): ChatRequest | undefined;
  /** `write_todos` and `update_todo`. */
  tools(): AnyTool[];
}

/** Default {@link TodoOptions.instructions}. */
export const TODO_INSTRUCTIONS =
  "For a task of several steps, plan it with write_todos, then keep each item's status current with update_todo (one item in_progress at a time).";

/** The schemas of todo lists, built on first use (no zod at import: see zod-runtime.ts). */
const schemas = memo(() => {
  const z = zod();
  const status = z.enum(["pending", "in_progress", "completed"]);
  const todo = z.strictObject({
    id: z.number().int().positive(),
    content: z.string(),
    status,
  });
  return {
    status,
    writeResult: z.object({ todos: z.array(todo) }),
    updateResult: z.object({ updated: z.object({ id: z.number().int(), status }) }),
  };
});

/** Names of the todo tools. */
const WRITE = "write_todos";
const UPDATE = "update_todo";

/**
 * The todo list as the tool results in `messages` leave it: every `write_todos` result
 * replaces the list, every successful `update_todo` result changes one item's status, in
 * message order (so two updates in one turn both count). Results that do not parse are skipped.
 *
 * @param messages - a conversation, such as `state.messages`.
 * @returns the list, `[]` when the model never wrote one.
 * @example
 * ```ts
 * const { state } = await agent.invoke({ messages: [HumanMessage({ content: "..." })] });
 * todosFromMessages(state.messages); // [{ id: 1, content: "Read the order", status: "completed" }, ...]
 * ```
 */
export function todosFromMessages(messages: readonly Message[]): Todo[] {
  let list: Todo[] = [];
  for (const m of messages) {
    if (m.type !== "tool" || (m.name !== WRITE && m.name !== UPDATE) || m.content === null) {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(textOf(m.content) ?? "");
    } catch {
      continue;
    }
    if (!isPlainObject(parsed)) continue;
    const result = (parsed as { result?: unknown }).result;
    if (m.name === WRITE) {
      const r = schemas().writeResult.safeParse(result);
      if (r.success) list = r.data.todos.map((t) => ({ ...t }));
    } else {
      const r = schemas().updateResult.safeParse(result);
      if (!r.success) continue;
      const { id, status } = r.data.updated;
      list = list.map((t) => (t.id === id ? { ...t, status } : t));
    }
  }
  return list;
}

function messagesOf(state: unknown, field: string): Message[] {
  if (!isPlainObject(state)) return [];
  const value = (state as Record<string, unknown>)[field];
  return Array.isArray(value) ? (value as Message[]) : [];
}

/** The note shown to the model: the instructions, then one line per item. */
export function todoNote(todos: readonly Todo[], instructions: string | null): string | null {
  if (todos.length === 0) return instructions;
  const lines = todos.map((t) => `${t.id}. [${t.status}] ${t.content}`);
  return [...(instructions === null ? [] : [instructions]), "Current todo list:", ...lines].join(
    "\n",
  );
}

/**
 * Give the model a todo list for long tasks.
 *
 * Tools (from `tools()`, which `buildReactAgent` adds to the agent's tools):
 * - `write_todos({ todos: [{ content, status }] })` replaces the whole list; the items get ids
 *   1, 2, … in order. Returns `{ todos }`.
 * - `update_todo({ id, status })` changes one item's status. Returns
 *   `{ updated: { id, status }, todos }`, or `{ error, todos }` for an unknown id (the model
 *   reads the error and the list; the run goes on).
 *
 * Where the list lives: in the tool results, that is in the thread's `messages`. Nothing
 * else holds it, so it is durable exactly as the conversation is: saved by the state store
 * with each step, restored on resume, forked with the thread, and the same in every process.
 * No extra state field is needed, so it works with `buildReactAgent`'s `AgentState`.
 * {@link todosFromMessages} reads it back (the tools and the hook use it on the state the
 * node received).
 *
 * Before each model call, `beforeModel` puts a system note with the instructions and the
 * current list (`"1. [completed] Read the order"`, one line per item) right after the
 * request's leading system messages. The note is in the request only, never in the state.
 * Place a history-trimming middleware after this one, so that the note counts in its budget
 * (trimming keeps leading system messages, and the list survives trimming because it is
 * read from the state, not from the trimmed request).
 *
 * @param options - `{ messagesField, instructions }`.
 * @throws TypeError when `instructions` is neither a string nor `null`.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, { tools: [lookupOrder], middleware: [TodoMiddleware()] });
 * ```
 */
export function TodoMiddleware(options: TodoOptions = {}): TodoMiddleware {
  const field = options.messagesField ?? "messages";
  const instructions =
    options.instructions === undefined ? TODO_INSTRUCTIONS : options.instructions;
  if (instructions !== null && typeof instructions !== "string") {
    throw new TypeError("TodoMiddleware: instructions must be a string or null");
  }
  const current = (ctx: ToolContext): Todo[] => todosFromMessages(messagesOf(ctx.state, field));
  const z = zod();
  const statusSchema = schemas().status;

  const writeTodos = tool(
    ({ todos }) => ({
      todos: todos.map((t, i) => ({ id: i + 1, content: t.content, status: t.status })),
    }),
    {
      name: WRITE,
      description:
        "Write your todo list for the task, replacing the previous one. Give every step with its status: pending, in_progress or completed.",
      input: z.object({
        todos: z
          .array(
            z.object({
              content: z.string().min(1).describe("What to do, in a short sentence"),
              status: statusSchema.default("pending"),
            }),
          )
          .describe("The whole list, in order"),
      }),
    },
  );

  const updateTodo = tool(
    ({ id, status }, ctx) => {
      const todos = current(ctx);
      if (!todos.some((t) => t.id === id)) {
        const ids = todos.map((t) => t.id).join(", ");
        return {
          error:
            todos.length === 0
              ? `No todo with id ${id}: the list is empty; write it with write_todos first`
              : `No todo with id ${id}; the ids are ${ids}`,
          todos,
        };
      }
      return {
        updated: { id, status },
        todos: todos.map((t) => (t.id === id ? { ...t, status } : t)),
      };
    },
    {
      name: UPDATE,
      description: "Change the status of one item of your todo list, by its id.",
      input: z.object({
        id: z.number().int().positive().describe("Id of the item, as in the todo list"),
        status: statusSchema,
      }),
    },
  );

  return {
    name: "TodoMiddleware",
    beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): ChatRequest | undefined {
      const note = todoNote(todosFromMessages(messagesOf(ctx.state, field)), instructions);
      if (note === null) return undefined;
      const messages = request.messages.slice();
      let at = 0;
      while (at < messages.length && messages[at]?.type === "system") at++;
      messages.splice(at, 0, SystemMessage({ content: note }));
      return { ...request, messages };
    },
    tools(): AnyTool[] {
      return [writeTodos, updateTodo] as unknown as AnyTool[];
    },
  };
}
