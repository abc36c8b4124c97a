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
export {
  middlewareName,
  middlewareTools,
  runAfterModel,
  runBeforeModel,
  runBeforeTool,
  runOnToolError,
} from "./run-hooks.js";
export { ToolLimitMiddleware, type ToolLimitOptions } from "./tool-limit.js";
export type { Middleware, ModelMiddlewareContext, ToolMiddlewareContext } from "./types.js";
