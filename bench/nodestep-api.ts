/**
 * Every nodestep import of the benchmarks, in one place: the package root and its subpaths
 * ("nodestep", "nodestep/chat", "nodestep/sqlite", "nodestep/postgres"), resolved to src/ through
 * tsconfig.json's `paths`, which tsx reads (the workers run with `node --import tsx`).
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
