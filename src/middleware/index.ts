/**
 * Middleware: the hook contract, the hook runners the agent nodes use, and
 * `ToolLimitMiddleware`.
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
export { historyChange, runRewriteHistory } from "./history-hooks.js";
export {
  estimateTokens,
  HistoryTrimMiddleware,
  type HistoryTrimOptions,
  PART_TOKENS,
} from "./history-trim.js";
export { ModelCallLimitMiddleware, type ModelCallLimitOptions } from "./model-call-limit.js";
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
export type { Middleware, ModelMiddlewareContext, ToolMiddlewareContext } from "./types.js";
