/**
 * Agents: the model and tool nodes, the ready-made ReAct agent, and its state.
 *
 * @module
 */
export {
  AgentState,
  type AgentStateShape,
  type TypedAgentState,
} from "./agent-state.js";
export { refuseInputAfterOpenCalls } from "./history.js";
export { type ModelNodeOptions, modelNode } from "./model-node.js";
export {
  type AgentGraph,
  type AgentOutput,
  buildReactAgent,
  type ReactAgent,
  type ReactAgentOptions,
  runAgent,
} from "./react-agent.js";
export {
  isMessagesEvent,
  isTokensEvent,
  type MessagesEvent,
  type TokensEvent,
} from "./stream-events.js";
export type { OnInvalid, StructuredOutputEvent } from "./structured-output.js";
export { type ToolErrorPolicy, type ToolRunnerOptions, toolRunner } from "./tool-runner.js";
