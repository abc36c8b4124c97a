/**
 * The graph engine: nodes, edges, routing, supersteps and streaming.
 *
 * @module
 */
export type { Breakpoint, BreakpointNodes } from "./breakpoints.js";
export {
  BUSY_POLICIES,
  type BusyPolicy,
  DEFAULT_BUSY_TIMEOUT_MS,
  MAX_BUSY_TIMEOUT_MS,
} from "./busy.js";
export { END_NAME } from "./compile.js";
export {
  type EmitMode,
  GraphInterrupt,
  isGraphInterrupt,
  type NodeContext,
  type PendingInterrupt,
  type StreamMode,
} from "./context.js";
export { ASYNC_MAX_HELD_STEPS, DURABILITY_MODES, type Durability } from "./durability.js";
export type { ErrorHandler, ErrorHandlerContext, TaskError } from "./error-handler.js";
export { type FromSpecOptions, fromSpec, type Resolved, refResolver } from "./from-spec.js";
export {
  Graph,
  type GraphInput,
  type GraphOptions,
  type GraphOutput,
  type GraphState,
  type GraphUpdate,
  type NewInputCheck,
  type NewInputOnThread,
  newRunId,
  type ThreadSnapshot,
} from "./graph.js";
export type { FieldSchema } from "./io-schema.js";
export { type JoinSource, join, type Waiting } from "./joins.js";
export { toMermaid } from "./mermaid.js";
export { NODE_NAME_PATTERN } from "./names.js";
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
} from "./node.js";
export {
  type CachePolicy,
  MemoryNodeCache,
  type NodeCache,
  nodeCachePrefix,
  type RetryPolicy,
  retryableByDefault,
  StoreNodeCache,
} from "./policies.js";
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
} from "./routing.js";
export { type InterruptEvent, isInterruptEvent } from "./run-stream.js";
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
} from "./spec.js";
export type { UpdateStateOptions } from "./state-update.js";
export type {
  CheckpointData,
  DebugEventData,
  TaskEventData,
  TaskResultData,
  TaskStartData,
} from "./stream-modes.js";
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
} from "./sub-agents.js";
export { type SubgraphOptions, subgraph } from "./subgraph.js";
export type { ThreadPosition } from "./thread-state.js";
export { type TraceScope, traced } from "./tracing.js";
export type {
  RunOptions,
  RunResult,
  StreamEvent,
  StreamEventFields,
  StreamEventOf,
  StreamOptions,
} from "./types.js";
