/**
 * How a run can end early: cancelled, stopped by another run, or paused for human input
 * (`runAgent`).
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";
import type { GraphErrorLocation } from "./graph.js";

/** A run was cancelled through its `AbortSignal`; `cause` is the signal's reason. */
export class RunCancelledError extends NodestepError {
  readonly graph: string | undefined;
  constructor(message: string, options?: GraphErrorLocation) {
    super(message, options);
    this.graph = options?.graph;
  }
}

/**
 * A run on a thread was stopped at a superstep boundary because another run asked for the
 * thread with the busy-thread policy `"interrupt"` (or `"rollback"`; see docs/busy-threads.md).
 * What it committed is kept (for `"rollback"`, the run that asked undoes it); the run recorded
 * `run_finished` (status `"interrupted"`, with `stoppedBy`) and gave the thread back.
 *
 * @example
 * ```ts
 * try { await graph.invoke(input, { threadId }); }
 * catch (e) { if (e instanceof RunStoppedError) console.log(`stopped by ${e.stoppedBy}`); }
 * ```
 */
export class RunStoppedError extends NodestepError {
  readonly graph: string;
  readonly threadId: string;
  readonly branchId: string;
  /** The run that was stopped. */
  readonly runId: string;
  /** The run that asked it to stop. */
  readonly stoppedBy: string;
  /** The number of the next superstep, which did not start. */
  readonly step: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      graph: string;
      threadId: string;
      branchId: string;
      runId: string;
      stoppedBy: string;
      step: number;
    },
  ) {
    super(message, options);
    this.graph = options.graph;
    this.threadId = options.threadId;
    this.branchId = options.branchId;
    this.runId = options.runId;
    this.stoppedBy = options.stoppedBy;
    this.step = options.step;
  }
}

/** One pending interrupt of a paused run. */
export interface InterruptInfo {
  /** Key the answer is given under in `resume`. */
  key: string;
  /** What the node asked. */
  value: unknown;
  /** Node that asked. */
  node: string;
  /** Task that asked. */
  taskId: string;
}

/** `runAgent` found the run paused for human input; resume with `invoke(null, { threadId, resume })`. */
export class RunInterruptedError extends NodestepError {
  readonly threadId: string | null;
  readonly interrupts: readonly InterruptInfo[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      threadId: string | null;
      interrupts: readonly InterruptInfo[];
    },
  ) {
    super(message, options);
    this.threadId = options.threadId;
    this.interrupts = options.interrupts;
  }
}
