/**
 * Errors raised by middleware limits: model calls, summarization, the usage budget.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** A run and its resumes asked the model more often than `ModelCallLimitMiddleware` allows. */
export class ModelCallLimitError extends NodestepError {
  /** The limit. */
  readonly maxModelCalls: number;
  /** Id of the run the count belongs to (`originRunId`), or `null` outside a graph. */
  readonly runId: string | null;
  /** Node that asked. */
  readonly node: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      maxModelCalls: number;
      runId: string | null;
      node: string | null;
    },
  ) {
    super(message, options);
    this.maxModelCalls = options.maxModelCalls;
    this.runId = options.runId;
    this.node = options.node;
  }
}

/**
 * The summary call of a `SummarizationMiddleware` with `onFailure: "raise"` failed (the
 * summary model threw, or answered without text). The history was left as it was and the
 * step failed; the model's own error is the `cause`.
 */
export class SummarizationError extends NodestepError {
  /** Name of the summary model (`chat.model`). */
  readonly model: string;
  /** Node whose model call was to be summarized for, or `null` outside a graph. */
  readonly node: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & { model: string; node: string | null },
  ) {
    super(message, options);
    this.model = options.model;
    this.node = options.node;
  }
}

/**
 * A thread used up the budget of `UsageBudgetMiddleware` (tokens or US dollars), or a person
 * declined to go past it. Token counts are `totalTokens`; amounts are US dollars.
 */
export class UsageBudgetExceededError extends NodestepError {
  readonly threadId: string;
  readonly branchId: string;
  /** Node whose model call was refused. */
  readonly node: string;
  /** Tokens the branch has used. */
  readonly usedTokens: number;
  /** The token limit (raises approved included), or `null` when there is none. */
  readonly maxTokens: number | null;
  /** What the branch has cost, or `null` without a cost limit. */
  readonly usedCostUsd: number | null;
  /** The cost limit (raises approved included), or `null` when there is none. */
  readonly maxCostUsd: number | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      threadId: string;
      branchId: string;
      node: string;
      usedTokens: number;
      maxTokens: number | null;
      usedCostUsd: number | null;
      maxCostUsd: number | null;
    },
  ) {
    super(message, options);
    this.threadId = options.threadId;
    this.branchId = options.branchId;
    this.node = options.node;
    this.usedTokens = options.usedTokens;
    this.maxTokens = options.maxTokens;
    this.usedCostUsd = options.usedCostUsd;
    this.maxCostUsd = options.maxCostUsd;
  }
}
