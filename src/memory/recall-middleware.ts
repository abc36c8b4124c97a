/**
 * `MemoryRecallMiddleware`: before each model call, put the memories most related to the
 * conversation into the request.
 *
 * @module
 */
import { SystemMessage } from "../chat/messages.js";
import { textOf } from "../chat/parts.js";
import type { ChatRequest } from "../chat/types.js";
import { MemoryStoreError } from "../errors/index.js";
import type { Middleware, ModelMiddlewareContext } from "../middleware/types.js";
import type { MemoryStore, Namespace, SearchItem } from "./types.js";

/** Options of {@link MemoryRecallMiddleware}. */
export interface MemoryRecallOptions {
  /** The namespace to search, from the model call's context (its `node.context`, `state`, `node.threadId`). */
  namespace: (ctx: ModelMiddlewareContext) => Namespace;
  /** The store; default the run's `ctx.memoryStore` (nothing is added when there is none). */
  store?: MemoryStore;
  /** Most memories added, 1 to 20; default 3. */
  limit?: number;
  /** Memories scoring below this (cosine similarity, -1 to 1) are left out; default none. */
  minScore?: number;
  /** The query from the request; default the content of its last human message (no human message: nothing is added). */
  query?: (request: ChatRequest) => string | null;
  /** First line of the added system message; default `"Relevant memories (most relevant first):"`. */
  heading?: string;
}

/** The middleware made by {@link MemoryRecallMiddleware}. */
export interface MemoryRecallMiddleware extends Middleware {
  readonly name: "MemoryRecallMiddleware";
  beforeModel(request: ChatRequest, ctx: ModelMiddlewareContext): Promise<ChatRequest | undefined>;
}

/** The text of a memory in the note: its `content` when it is a string, else its value as JSON. */
function text(item: SearchItem): string {
  return typeof item.value.content === "string" ? item.value.content : JSON.stringify(item.value);
}

/**
 * Semantic recall for agents (Mastra: "semantic recall"). Before each model call it searches
 * the namespace for the query (the last human message) and, when something is found, adds a
 * system message right after the request's leading system messages:
 *
 * ```text
 * Relevant memories (most relevant first):
 * - The user likes green tea.
 * ```
 *
 * Only the request changes, never the thread's state. Needs a store with `index`.
 *
 * @throws MemoryStoreError when `limit` is not 1 to 20 or `namespace` is not a function; when
 *   it runs, the store's errors.
 * @example
 * ```ts
 * const recall = MemoryRecallMiddleware({ namespace: (ctx) => ["users", (ctx.node.context as { userId: string }).userId] });
 * const agent = buildReactAgent(chat, { middleware: [recall], memoryStore });
 * ```
 */
export function MemoryRecallMiddleware(options: MemoryRecallOptions): MemoryRecallMiddleware {
  if (typeof options?.namespace !== "function") {
    throw new MemoryStoreError(
      "MemoryRecallMiddleware({ namespace }): namespace must be a function (ctx) => string[]",
    );
  }
  const limit = options.limit ?? 3;
  if (!Number.isInteger(limit) || limit < 1 || limit > 20) {
    throw new MemoryStoreError(
      `MemoryRecallMiddleware: limit must be a whole number from 1 to 20, got ${String(limit)}`,
    );
  }
  const heading = options.heading ?? "Relevant memories (most relevant first):";
  const queryOf =
    options.query ??
    ((request: ChatRequest) => {
      for (let i = request.messages.length - 1; i >= 0; i--) {
        const m = request.messages[i]!;
        if (m.type === "human") return textOf(m.content);
      }
      return null;
    });
  return {
    name: "MemoryRecallMiddleware",
    async beforeModel(request, ctx) {
      const store = options.store ?? ctx.node.memoryStore;
      if (!store) return undefined;
      const query = queryOf(request);
      if (query === null || query === "") return undefined;
      let found = await store.search(options.namespace(ctx), { query, limit });
      if (options.minScore !== undefined)
        found = found.filter((m) => (m.score ?? -1) >= (options.minScore as number));
      if (found.length === 0) return undefined;
      const note = [heading, ...found.map((m) => `- ${text(m)}`)].join("\n");
      const messages = request.messages.slice();
      let at = 0;
      while (at < messages.length && messages[at]?.type === "system") at++;
      messages.splice(at, 0, SystemMessage({ content: note }));
      return { ...request, messages };
    },
  };
}
