/**
 * `memoryTools`: the `remember`, `recall` and `forget` tools an agent uses to keep facts in a
 * {@link MemoryStore}, under a namespace the run chooses.
 *
 * @module
 */
import { MemoryStoreError } from "../errors/index.js";
import { nodeCrypto } from "../lazy.js";
import { tool } from "../tools/tool.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import { zod } from "../zod-runtime.js";
import type { MemoryStore, Namespace } from "./types.js";

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions<C = unknown> {
  /**
   * The namespace of this call's memories, from the tool context: per user
   * (`(ctx) => ["users", ctx.context.userId, "memories"]`), per organisation, per thread.
   * Called on every tool call.
   */
  namespace: (ctx: ToolContext<C>) => Namespace;
  /** The store; default the run's `ctx.memoryStore`. */
  store?: MemoryStore;
  /** Most memories `recall` returns when the model does not say; default 5 (the model may ask 1 to 20). */
  recallLimit?: number;
}

/** A stored memory as the tools write it: `{ content }`. */
export interface MemoryNote {
  content: string;
}

/** The key `remember` gives a memory without one: `"m-"` and 16 hex digits of the content's SHA-256 (the same fact twice is one memory). */
export function memoryKey(content: string): string {
  return `m-${nodeCrypto().createHash("sha256").update(content).digest("hex").slice(0, 16)}`;
}

function storeOf(ctx: ToolContext, given: MemoryStore | undefined, name: string): MemoryStore {
  const store = given ?? ctx.memoryStore;
  if (!store) {
    throw new MemoryStoreError(
      `Tool "${name}" needs a memory store: give the graph (or the run) { memoryStore }, or memoryTools({ store })`,
    );
  }
  return store;
}

function namespaceOf<C>(
  options: MemoryToolsOptions<C>,
  ctx: ToolContext<C>,
  name: string,
): Namespace {
  const ns = options.namespace(ctx);
  if (!Array.isArray(ns)) {
    throw new MemoryStoreError(
      `Tool "${name}": memoryTools' namespace function returned ${typeof ns}, not a list of strings`,
    );
  }
  return ns;
}

/**
 * Three tools over a memory store, all in the namespace that `options.namespace` picks for the
 * call (so one user's agent never sees another's memories):
 *
 * - `remember({ content, key? })` stores `{ content }` under `key` (default {@link memoryKey}
 *   of the content) and returns `{ key }`.
 * - `recall({ query, limit? })` returns `{ memories: [{ key, content, score }] }`, the most
 *   similar first (needs a store with `index`; `score` is the cosine similarity).
 * - `forget({ key })` deletes one and returns `{ key, deleted }`.
 *
 * The store is `options.store` or the run's `ctx.memoryStore`. Errors (no store, a bad
 * namespace, a store error) reach the model as a failed tool call.
 *
 * @throws TypeError when `options.namespace` is not a function; ValueError-like
 *   `MemoryStoreError` when `recallLimit` is not 1 to 20.
 * @example
 * ```ts
 * const tools = memoryTools<{ userId: string }>({ namespace: (ctx) => ["users", ctx.context.userId] });
 * const agent = buildReactAgent(chat, { tools, memoryStore });
 * ```
 */
export function memoryTools<C = unknown>(options: MemoryToolsOptions<C>): AnyTool[] {
  if (typeof options?.namespace !== "function") {
    throw new TypeError(
      "memoryTools({ namespace }): namespace must be a function (ctx) => string[]",
    );
  }
  const recallLimit = options.recallLimit ?? 5;
  if (!Number.isInteger(recallLimit) || recallLimit < 1 || recallLimit > 20) {
    throw new MemoryStoreError(
      `memoryTools: recallLimit must be a whole number from 1 to 20, got ${String(recallLimit)}`,
    );
  }
  const z = zod();
  const remember = tool(
    async ({ content, key }, ctx: ToolContext<C>) => {
      const store = storeOf(ctx as ToolContext, options.store, "remember");
      const k = key ?? memoryKey(content);
      await store.put(namespaceOf(options, ctx, "remember"), k, { content });
      return { key: k };
    },
    {
      name: "remember",
      description:
        "Save a fact to long-term memory, to use in later conversations: a preference, a detail about the user, something learned. One fact per call, in a short sentence.",
      input: z.object({
        content: z
          .string()
          .min(1)
          .max(4000)
          .describe("The fact, as a short self-contained sentence"),
        key: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe("A key to update an earlier memory; leave out for a new one"),
      }),
    },
  );
  const recall = tool(
    async ({ query, limit }, ctx: ToolContext<C>) => {
      const store = storeOf(ctx as ToolContext, options.store, "recall");
      const found = await store.search(namespaceOf(options, ctx, "recall"), {
        query,
        limit: limit ?? recallLimit,
      });
      return {
        memories: found.map((m) => ({
          key: m.key,
          content: typeof m.value.content === "string" ? m.value.content : JSON.stringify(m.value),
          score: m.score === null ? null : Math.round(m.score * 1000) / 1000,
        })),
      };
    },
    {
      name: "recall",
      description: "Search long-term memory for facts related to a query; the most related first.",
      input: z.object({
        query: z.string().min(1).describe("What to look for"),
        limit: z.number().int().min(1).max(20).optional().describe("Most memories to return"),
      }),
    },
  );
  const forget = tool(
    async ({ key }, ctx: ToolContext<C>) => {
      const store = storeOf(ctx as ToolContext, options.store, "forget");
      const deleted = await store.delete(namespaceOf(options, ctx, "forget"), key);
      return { key, deleted };
    },
    {
      name: "forget",
      description:
        "Delete one memory by its key (as recall returned it), when it is wrong or the user asks.",
      input: z.object({ key: z.string().min(1).describe("Key of the memory") }),
    },
  );
  return [remember, recall, forget] as unknown as AnyTool[];
}
