/**
 * Every nodestep import of the benchmarks, in one place: the package root and its subpaths
 * ("nodestep", "nodestep/chat", "nodestep/sqlite", "nodestep/postgres"), resolved to src/ through
 * tsconfig.json's `paths`, which tsx and esbuild read (the workers run compiled, see
 * bench/worker-build.ts; the other scripts with `node --import tsx`). bench/impl-nodestep.ts
 * imports the package directly (and "nodestep/sqlite", "nodestep/postgres" on first use of
 * those stores), so that a worker on the memory store does not load pg and better-sqlite3.
 *
 * @module
 */
export {
  buildReactAgent,
  type Durability,
  defineState,
  END,
  Graph,
  HumanMessage,
  MemoryStateStore,
  messagesField,
  node,
  reducer,
  Send,
  START,
  type StateStore,
  type StoredEvent,
  tool,
  when,
} from "nodestep";
export type {
  Chat,
  ChatRequest,
  ChatResponseInit,
  ChatStreamChunk,
  ContentPart,
} from "nodestep/chat";
export { PostgresStateStore } from "nodestep/postgres";
export { createServer } from "nodestep/server";
export { SqliteStateStore } from "nodestep/sqlite";
