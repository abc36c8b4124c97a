/**
 * Shared checks and encodings of the built-in state stores (memory, SQLite, PostgreSQL).
 * Internal: not part of the public API; a user-written store may copy what it needs.
 *
 * One file per concept: ids.ts (thread, branch and event ids), event-encoding.ts (events and
 * snapshots to and from JSON text, row sizes), read-plan.ts (a read over a branch's chain),
 * store-errors.ts, lease-checks.ts (leases, stop requests), list-options.ts (options
 * objects, `listThreads`), delete-under-leases.ts (`deleteThread`).
 *
 * @module
 */
export {
  deleteChildren,
  isDeleted,
  MAX_DELETE_ATTEMPTS,
  underLeases,
} from "./delete-under-leases.js";
export {
  decodeEvent,
  decodeSnapshot,
  type EncodedEvent,
  EVENT_TYPES,
  type EventRow,
  encodedAsStored,
  encodeEvents,
  encodeSnapshot,
  eventRowBytes,
  snapshotRowBytes,
  utf8Bytes,
} from "./event-encoding.js";
export {
  checkBranchId,
  checkSeq,
  checkThreadId,
  eventId,
  isThreadId,
  MAIN_BRANCH,
  newBranchId,
  parseEventId,
} from "./ids.js";
export { checkLease, checkReleaseArgs, checkStopArgs, MAX_LEASE_TTL_MS } from "./lease-checks.js";
export { byCodePoint, byUpdatedAt, checkOptions, listBounds } from "./list-options.js";
export {
  type ChainLink,
  checkContiguous,
  planRead,
  type ReadSegment,
  readBounds,
} from "./read-plan.js";
export {
  branchExists,
  closedError,
  concurrentWrite,
  snapshotBeyondEnd,
  unknownBranch,
  unknownEvent,
} from "./store-errors.js";
