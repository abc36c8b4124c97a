/**
 * `nodestep/postgres`: the PostgreSQL state store and memory store (pgvector or exact
 * semantic search), on pg (a peer dependency). Its types do not need `@types/pg`: the `pool`
 * option is the structural {@link PostgresPool}.
 *
 * @module
 */

export type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "./pool.js";
export {
  chooseVectorMode,
  PGVECTOR_MISSING_MESSAGE,
  POSTGRES_MAX_DIMENSIONS,
  POSTGRES_MEMORY_SCHEMA_VERSION,
  PostgresMemoryStore,
  type PostgresMemoryStoreOptions,
  type PostgresVectorIndex,
} from "./postgres-memory-store.js";
export {
  POSTGRES_SCHEMA_VERSION,
  PostgresStateStore,
  type PostgresStateStoreOptions,
} from "./postgres-state-store.js";
