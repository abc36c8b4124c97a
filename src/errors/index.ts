/**
 * Every error nodestep raises on purpose is a subclass of {@link NodestepError}.
 *
 * Each class has typed fields for where it happened (graph, node, field, tool, thread…),
 * and errors caused by user code keep the original error as `cause`.
 *
 * One file per family of errors: base.ts (`NodestepError`, `ValueError`), graph.ts, run.ts,
 * store.ts, tools.ts, model.ts, memory.ts, workspace.ts, middleware.ts, sub-agents.ts.
 *
 * @module
 */

export { NodestepError, type NodestepErrorOptions, ValueError } from "./base.js";
export {
  ContextNotProvidedError,
  GraphConfigError,
  type GraphErrorLocation,
  GraphExecutionError,
  NodeTimeoutError,
  StateUpdateError,
  StepLimitError,
} from "./graph.js";
export { MemoryStoreError } from "./memory.js";
export { ModelCallLimitError, SummarizationError, UsageBudgetExceededError } from "./middleware.js";
export {
  ChatHistoryError,
  FallbackExhaustedError,
  ModelProviderError,
  ModelSpecError,
  PendingToolCallsError,
  StructuredOutputError,
  UnknownModelError,
  UnsupportedPartError,
} from "./model.js";
export {
  type InterruptInfo,
  RunCancelledError,
  RunInterruptedError,
  RunStoppedError,
} from "./run.js";
export {
  ConcurrentWriteError,
  LeaseLostError,
  StateStoreError,
  ThreadBusyError,
  UnknownBranchError,
  UnknownEventError,
} from "./store.js";
export {
  type AgentFailure,
  AgentGroupError,
  AgentHandleLostError,
  AgentTimeoutError,
} from "./sub-agents.js";
export {
  ToolDeniedError,
  ToolExecutionError,
  ToolGroupExecutionError,
  ValidationError,
} from "./tools.js";
export { WorkspaceError } from "./workspace.js";
