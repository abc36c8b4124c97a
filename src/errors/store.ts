/**
 * Errors of a state store (the event log of threads): `StateStoreError` and its subclasses.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** A state store refused or failed an operation: a value that does not survive JSON, a damaged row, an unknown thread. */
export class StateStoreError extends NodestepError {
  readonly threadId: string | undefined;
  readonly branchId: string | undefined;
  /** Path of the value at fault, such as `messages[3].content`. */
  readonly field: string | undefined;
  constructor(
    message: string,
    options?: NodestepErrorOptions & { threadId?: string; branchId?: string; field?: string },
  ) {
    super(message, options);
    this.threadId = options?.threadId;
    this.branchId = options?.branchId;
    this.field = options?.field;
  }
}

/** Another writer appended to the branch since this one last read it (optimistic concurrency), or holds its lease. */
export class ConcurrentWriteError extends StateStoreError {}

/** A thread is already running on this branch; a second run fails at once instead of interleaving. */
export class ThreadBusyError extends StateStoreError {}

/**
 * A run lost its thread's lease while it ran: renewing it failed (the store was unreachable)
 * or answered `false` (another writer took it over, say after the lease expired while this
 * process was paused). The run stops writing at once: nothing is appended after the renewal
 * that failed, and the run ends with this error. The thread is left as its last stored event
 * says; the writer that holds the lease now (or a later `invoke(null, { threadId })`) goes on.
 */
export class LeaseLostError extends StateStoreError {}

/** No such thread or branch in the store. */
export class UnknownBranchError extends StateStoreError {}

/** No such event in the thread. */
export class UnknownEventError extends StateStoreError {
  readonly eventId: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { threadId?: string; eventId: string },
  ) {
    super(message, options);
    this.eventId = options.eventId;
  }
}
