/**
 * Long-term memory: the `MemoryStore` contract (LangGraph: `BaseStore`), `InMemoryStore`, the
 * `Embeddings` interface and its AI SDK adapter, and JSON-lines export and import. SQLite and
 * PostgreSQL stores live in `nodestep/sqlite` and `nodestep/postgres`.
 *
 * @module
 */
export { type AiSdkEmbeddingModel, aiSdkEmbeddings } from "./ai-sdk-embeddings.js";
export { InMemoryStore, type InMemoryStoreOptions } from "./in-memory-store.js";
export {
  DEFAULT_LIMIT as MEMORY_DEFAULT_LIMIT,
  DEFAULT_MAX_SEARCH_ITEMS as MEMORY_DEFAULT_MAX_SEARCH_ITEMS,
  MAX_DIMENSIONS as MEMORY_MAX_DIMENSIONS,
  MAX_KEY_LENGTH as MEMORY_MAX_KEY_LENGTH,
  MAX_LABEL_LENGTH as MEMORY_MAX_LABEL_LENGTH,
  MAX_LIMIT as MEMORY_MAX_LIMIT,
  MAX_NAMESPACE_DEPTH as MEMORY_MAX_NAMESPACE_DEPTH,
  MAX_VALUE_BYTES as MEMORY_MAX_VALUE_BYTES,
} from "./internal.js";
export {
  MemoryRecallMiddleware,
  type MemoryRecallOptions,
} from "./recall-middleware.js";
export { type MemoryNote, type MemoryToolsOptions, memoryKey, memoryTools } from "./tools.js";
export { exportNamespace, type ImportOptions, importNamespace } from "./transfer.js";
export type {
  Embeddings,
  IndexConfig,
  ListNamespacesOptions,
  ListOptions,
  MemoryFilter,
  MemoryItem,
  MemoryOperation,
  MemoryOperationResult,
  MemoryStore,
  Namespace,
  PutOptions,
  SearchItem,
  SearchOptions,
} from "./types.js";
