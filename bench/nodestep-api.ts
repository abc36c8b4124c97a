/**
 * Every nodestep import of the benchmarks, in one place.
 *
 * The graph engine, state and stores come from the package root ("nodestep", resolved to
 * src/ by the `development` condition). The agent module is not exported from the root yet,
 * and the `nodestep/sqlite` and `nodestep/postgres` subpaths are not in the committed
 * package.json exports yet, so those are imported by relative path from src/ for now.
 *
 * @module
 */
export {
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
  tool,
  when,
} from "nodestep";
export type { Chat, ChatRequest, ChatResponseInit, ChatStreamChunk } from "nodestep/chat";
// TODO: import from "nodestep" once src/index.ts exports the agents.
export { buildReactAgent } from "../src/agents/index.js";
// TODO: import from "nodestep/postgres" and "nodestep/sqlite" once package.json exports them.
export { PostgresStateStore } from "../src/integrations/postgres/index.js";
export { SqliteStateStore } from "../src/integrations/sqlite/index.js";
