/**
 * Errors of sub-agents: `gather` failures, time-outs, lost handles.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** What an `AgentResult` says of a sub-agent's failure: plain data, the same from every executor. */
export interface AgentFailure {
  name: string;
  message: string;
}

/** Sub-agents failed or were cancelled and `gather` was not asked to return exceptions; `results` holds every result, in handle order. */
export class AgentGroupError extends NodestepError {
  readonly results: readonly { id: string; status: string; error: AgentFailure | null }[];
  readonly errors: readonly unknown[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      results: readonly { id: string; status: string; error: AgentFailure | null }[];
      errors: readonly unknown[];
    },
  ) {
    super(message, options);
    this.results = options.results;
    this.errors = options.errors;
  }
}

/** `gather`'s `timeoutMs` expired before every sub-agent finished; the unfinished ones were cancelled. */
export class AgentTimeoutError extends NodestepError {
  /** Ids of the sub-agents that had not finished. */
  readonly pending: readonly string[];
  readonly timeoutMs: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & { pending: readonly string[]; timeoutMs: number },
  ) {
    super(message, options);
    this.pending = options.pending;
    this.timeoutMs = options.timeoutMs;
  }
}

/** A handle was not spawned in this run, was already gathered, or is unknown to the executor. */
export class AgentHandleLostError extends NodestepError {
  readonly handleId: string;
  constructor(message: string, options: NodestepErrorOptions & { handleId: string }) {
    super(message, options);
    this.handleId = options.handleId;
  }
}
