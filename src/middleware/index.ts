/**
 * Middleware: the hook contract, the hook runners the agent nodes use, the built-in
 * middleware (limits, approval, history trim, to-dos, retries, usage budget), and the usage
 * totals and prices they read.
 *
 * @module
 */

export {
  ApprovalAnswer,
  ApprovalMiddleware,
  type ApprovalOptions,
  type ApprovalRequest,
  DENIED_BY_PERSON,
} from "./approval.js";
export { type BackoffOptions, backoffDelay, type RetryClock, systemClock } from "./backoff.js";
export { historyChange, runRewriteHistory } from "./history-hooks.js";
export {
  estimateTokens,
  HistoryTrimMiddleware,
  type HistoryTrimOptions,
  PART_TOKENS,
} from "./history-trim.js";
export { ModelCallLimitMiddleware, type ModelCallLimitOptions } from "./model-call-limit.js";
export {
  isRetryableModelError,
  type ModelRetryEvent,
  ModelRetryMiddleware,
  type ModelRetryOptions,
  RETRY_STATUSES,
} from "./model-retry.js";
export {
  type Cost,
  checkPrices,
  costOf,
  type ModelPrice,
  type PriceTable,
  priceOf,
  usageCost,
} from "./prices.js";
export {
  middlewareName,
  middlewareTools,
  runAfterModel,
  runBeforeModel,
  runBeforeTool,
  runOnToolError,
} from "./run-hooks.js";
export {
  isSummaryMessage,
  SUMMARY_ID_PREFIX,
  SUMMARY_PREFIX,
  SUMMARY_PROMPT,
  type SummarizationFailedEvent,
  SummarizationMiddleware,
  type SummarizationOptions,
} from "./summarization.js";
export { summaryTranscript } from "./summary-transcript.js";
export {
  TODO_INSTRUCTIONS,
  type Todo,
  TodoMiddleware,
  type TodoOptions,
  type TodoStatus,
  todoNote,
  todosFromMessages,
} from "./todo.js";
export { ToolLimitMiddleware, type ToolLimitOptions } from "./tool-limit.js";
export {
  type ErrorClass,
  type ToolRetryEvent,
  ToolRetryMiddleware,
  type ToolRetryOptions,
  type ToolRetryPolicy,
} from "./tool-retry.js";
export type {
  Middleware,
  ModelMiddlewareContext,
  RunEndInfo,
  ToolMiddlewareContext,
} from "./types.js";
export {
  UsageBudgetMiddleware,
  type UsageBudgetOptions,
  type UsageBudgetRequest,
} from "./usage-budget.js";
export {
  type UsageReport,
  usageReport,
  type WithUsage,
  type WithUsageOptions,
  withUsage,
} from "./usage-report.js";
export {
  emptyTotals,
  UsageLedger,
  type UsageSummary,
  type UsageTotals,
  usageFromEvents,
} from "./usage-totals.js";
export { runWrapModelCall, runWrapToolCall } from "./wrap-hooks.js";
