/**
 * `nodestep/postgres`: the PostgreSQL state store, on pg (a peer dependency).
 *
 * @module
 */
export {
  POSTGRES_SCHEMA_VERSION,
  PostgresStateStore,
  type PostgresStateStoreOptions,
} from "./postgres-state-store.js";
