/**
 * State stores: the event log contract and the in-memory store. SQLite and PostgreSQL stores
 * live in `nodestep/sqlite` and `nodestep/postgres`.
 *
 * @module
 */
export { MemoryStateStore } from "./memory-state-store.js";
export type {
  BranchInfo,
  DeleteThreadOptions,
  EventType,
  LeasedAppend,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "./types.js";
