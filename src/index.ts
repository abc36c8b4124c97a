/**
 * nodestep: build LLM agents as graphs.
 *
 * The root module holds the graph engine, state, nodes and routing, tools, agents,
 * middleware, the in-memory state store, `ScriptedChat` and the errors. Chat types live in
 * `nodestep/chat`; each integration has its own subpath.
 *
 * @module
 */

// agents/ (its index.ts, flattened: one module less to load)
export {
  AgentState,
  type AgentStateShape,
  type TypedAgentState,
} from "./agents/agent-state.js";
export {
  type ModelNodeOptions,
  modelNode,
  type OnInvalid,
  type StructuredOutputEvent,
} from "./agents/model-node.js";
export {
  type AgentGraph,
  type AgentOutput,
  buildReactAgent,
  type ReactAgent,
  type ReactAgentOptions,
  runAgent,
} from "./agents/react-agent.js";
export {
  isMessagesEvent,
  isTokensEvent,
  type MessagesEvent,
  type TokensEvent,
} from "./agents/stream-events.js";
export { type ToolErrorPolicy, type ToolRunnerOptions, toolRunner } from "./agents/tool-runner.js";
// chat/: what the root exports of nodestep/chat, from the modules that define it
export {
  AIMessage,
  HumanMessage,
  type Message,
  SystemMessage,
  ToolMessage,
} from "./chat/messages.js";
export {
  type ContentPart,
  type MessageContent,
  type ReasoningPart,
  textOf,
} from "./chat/parts.js";
export { ScriptedChat, type ScriptedResponse } from "./chat/scripted-chat.js";
export { ToolCall } from "./chat/tool-call.js";
export * from "./errors/index.js";
// graph/ (its index.ts, flattened: one module less to load)
export type { Breakpoint, BreakpointNodes } from "./graph/breakpoints.js";
export {
  BUSY_POLICIES,
  type BusyPolicy,
  DEFAULT_BUSY_TIMEOUT_MS,
  MAX_BUSY_TIMEOUT_MS,
} from "./graph/busy.js";
export { END_NAME } from "./graph/compile.js";
export {
  type EmitMode,
  GraphInterrupt,
  isGraphInterrupt,
  type NodeContext,
  type PendingInterrupt,
  type StreamMode,
} from "./graph/context.js";
export type { ErrorHandler, ErrorHandlerContext, TaskError } from "./graph/error-handler.js";
export { type FromSpecOptions, fromSpec, type Resolved, refResolver } from "./graph/from-spec.js";
export {
  Graph,
  type GraphInput,
  type GraphOptions,
  type GraphState,
  type GraphUpdate,
  newRunId,
  type ThreadSnapshot,
} from "./graph/graph.js";
export type { FieldSchema } from "./graph/io-schema.js";
export { type JoinSource, join, type Waiting } from "./graph/joins.js";
export { toMermaid } from "./graph/mermaid.js";
export {
  type Edge,
  isNode,
  type Node,
  type NodeHandler,
  type NodeOptions,
  type NodeReturn,
  type NodeUpdate,
  node,
  START,
  type StartSentinel,
} from "./graph/node.js";
export {
  type CachePolicy,
  MemoryNodeCache,
  type NodeCache,
  nodeCachePrefix,
  type RetryPolicy,
  retryableByDefault,
  StoreNodeCache,
} from "./graph/policies.js";
export {
  type AnyNode,
  Command,
  type Condition,
  type Conditional,
  type EdgeTarget,
  END,
  type EndSentinel,
  type GotoTarget,
  isEnd,
  Send,
  type TargetRef,
  when,
} from "./graph/routing.js";
export {
  type EdgeSpec,
  type GraphSpec,
  GraphSpecSchema,
  type JoinEdgeSpec,
  type NodeSpec,
  START_NAME,
  type StateFieldSpec,
  type StaticEdgeSpec,
  toSpec,
  type WhenEdgeSpec,
} from "./graph/spec.js";
export type { UpdateStateOptions } from "./graph/state-update.js";
export type {
  CheckpointData,
  DebugEventData,
  TaskEventData,
  TaskResultData,
  TaskStartData,
} from "./graph/stream-modes.js";
export {
  type AgentExecutor,
  type AgentGraph as SubAgentGraph,
  type AgentHandle,
  type AgentJob,
  type AgentResult,
  type AgentTask,
  type DurableAgentHandle,
  InProcessExecutor,
  runAgentJob,
} from "./graph/sub-agents.js";
export { type SubgraphOptions, subgraph } from "./graph/subgraph.js";
export type { ThreadPosition } from "./graph/thread-state.js";
export { type TraceScope, traced } from "./graph/tracing.js";
export type {
  RunOptions,
  RunResult,
  StreamEvent,
  StreamEventFields,
  StreamEventOf,
  StreamOptions,
} from "./graph/types.js";
export * from "./json/index.js";
// memory/ (its index.ts, flattened: one module less to load)
export { type AiSdkEmbeddingModel, aiSdkEmbeddings } from "./memory/ai-sdk-embeddings.js";
export { InMemoryStore, type InMemoryStoreOptions } from "./memory/in-memory-store.js";
export {
  DEFAULT_LIMIT as MEMORY_DEFAULT_LIMIT,
  DEFAULT_MAX_SEARCH_ITEMS as MEMORY_DEFAULT_MAX_SEARCH_ITEMS,
  MAX_DIMENSIONS as MEMORY_MAX_DIMENSIONS,
  MAX_KEY_LENGTH as MEMORY_MAX_KEY_LENGTH,
  MAX_LABEL_LENGTH as MEMORY_MAX_LABEL_LENGTH,
  MAX_LIMIT as MEMORY_MAX_LIMIT,
  MAX_NAMESPACE_DEPTH as MEMORY_MAX_NAMESPACE_DEPTH,
  MAX_VALUE_BYTES as MEMORY_MAX_VALUE_BYTES,
} from "./memory/internal.js";
export {
  MemoryRecallMiddleware,
  type MemoryRecallOptions,
} from "./memory/recall-middleware.js";
export {
  type MemoryNote,
  type MemoryToolsOptions,
  memoryKey,
  memoryTools,
} from "./memory/tools.js";
export { exportNamespace, type ImportOptions, importNamespace } from "./memory/transfer.js";
export type {
  Embeddings,
  IndexConfig,
  ListOptions,
  MemoryFilter,
  MemoryItem,
  MemoryStore,
  Namespace,
  PutOptions,
  SearchItem,
  SearchOptions,
} from "./memory/types.js";
// middleware/ (its index.ts, flattened: one module less to load)
export {
  ApprovalAnswer,
  ApprovalMiddleware,
  type ApprovalOptions,
  type ApprovalRequest,
  DENIED_BY_PERSON,
} from "./middleware/approval.js";
export {
  type BackoffOptions,
  backoffDelay,
  type RetryClock,
  systemClock,
} from "./middleware/backoff.js";
export { historyChange, runRewriteHistory } from "./middleware/history-hooks.js";
export {
  estimateTokens,
  HistoryTrimMiddleware,
  type HistoryTrimOptions,
  PART_TOKENS,
} from "./middleware/history-trim.js";
export {
  ModelCallLimitMiddleware,
  type ModelCallLimitOptions,
} from "./middleware/model-call-limit.js";
export {
  isRetryableModelError,
  type ModelRetryEvent,
  ModelRetryMiddleware,
  type ModelRetryOptions,
  RETRY_STATUSES,
} from "./middleware/model-retry.js";
export {
  type Cost,
  checkPrices,
  costOf,
  type ModelPrice,
  type PriceTable,
  priceOf,
  usageCost,
} from "./middleware/prices.js";
export {
  middlewareName,
  middlewareTools,
  runAfterModel,
  runBeforeModel,
  runBeforeTool,
  runOnToolError,
} from "./middleware/run-hooks.js";
export {
  isSummaryMessage,
  SUMMARY_ID_PREFIX,
  SUMMARY_PREFIX,
  SUMMARY_PROMPT,
  type SummarizationFailedEvent,
  SummarizationMiddleware,
  type SummarizationOptions,
} from "./middleware/summarization.js";
export { summaryTranscript } from "./middleware/summary-transcript.js";
export {
  TODO_INSTRUCTIONS,
  type Todo,
  TodoMiddleware,
  type TodoOptions,
  type TodoStatus,
  todoNote,
  todosFromMessages,
} from "./middleware/todo.js";
export { ToolLimitMiddleware, type ToolLimitOptions } from "./middleware/tool-limit.js";
export {
  type ErrorClass,
  type ToolRetryEvent,
  ToolRetryMiddleware,
  type ToolRetryOptions,
  type ToolRetryPolicy,
} from "./middleware/tool-retry.js";
export type {
  Middleware,
  ModelMiddlewareContext,
  ToolMiddlewareContext,
} from "./middleware/types.js";
export {
  UsageBudgetMiddleware,
  type UsageBudgetOptions,
  type UsageBudgetRequest,
} from "./middleware/usage-budget.js";
export {
  type UsageReport,
  usageReport,
  type WithUsage,
  type WithUsageOptions,
  withUsage,
} from "./middleware/usage-report.js";
export {
  emptyTotals,
  UsageLedger,
  type UsageSummary,
  type UsageTotals,
  usageFromEvents,
} from "./middleware/usage-totals.js";
export { runWrapModelCall, runWrapToolCall } from "./middleware/wrap-hooks.js";
// state/ (its index.ts, flattened: one module less to load)
export {
  addMessages,
  type MessagesUpdate,
  MessagesUpdateSchema,
  RemoveMessage,
  RemoveMessageSchema,
} from "./state/add-messages.js";
export {
  applyUpdate,
  defineState,
  type FieldDeclaration,
  type FieldSpec,
  initialState,
  isStateDefinition,
  messagesField,
  type PreparedUpdate,
  preparePayload,
  prepareUpdate,
  type ReducedField,
  type Reducer,
  reducer,
  type StateDefinition,
  type StateOfShape,
  type StateShape,
  type UpdateOfShape,
} from "./state/define-state.js";
export { isReplacement, Replace, type Replacement } from "./state/replace.js";
export type { FieldCodec } from "./state/update-codec.js";
// stores/ (its index.ts, flattened: one module less to load)
export { MemoryStateStore } from "./stores/memory-state-store.js";
export type {
  BranchInfo,
  DeleteThreadOptions,
  EventType,
  ListThreadsOptions,
  NewEvent,
  Snapshot,
  StateStore,
  StoredEvent,
  ThreadInfo,
} from "./stores/types.js";
// tools/ (its index.ts, flattened: one module less to load)
export { callTool, type ToolContent, toolContent, toolResultContent } from "./tools/call-tool.js";
export {
  isTool,
  type NoArguments,
  TOOL_NAME_PATTERN,
  type ToolOptions,
  tool,
} from "./tools/tool.js";
export {
  type EmptyToolContextOptions,
  emptyToolContext,
  type FromNodeContextOptions,
  ToolContext,
  toolContextFromNode,
} from "./tools/tool-context.js";
export type { AnyTool, Tool, ToolCallResult, ToolFunction } from "./tools/types.js";
// workspace/ (its index.ts, flattened: one module less to load)
export { DirectoryWorkspace } from "./workspace/directory.js";
export { MemoryWorkspace } from "./workspace/memory.js";
export { MAX_NAME_BYTES, MAX_PATH_BYTES, normalizePath } from "./workspace/paths.js";
export { type WorkspaceToolsOptions, workspaceOf, workspaceTools } from "./workspace/tools.js";
export { isWorkspace, type Workspace } from "./workspace/types.js";
