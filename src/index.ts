/**
 * nodestep: build LLM agents as graphs.
 *
 * The root module holds the graph engine, state, nodes and routing, tools, agents,
 * middleware, the in-memory state store, `ScriptedChat` and the errors. Chat types live in
 * `nodestep/chat`; each integration has its own subpath.
 *
 * @module
 */

// First: with zod 3 installed, stop here with a clear error (see zod-version.ts).
import "./zod-version.js";

export * from "./agents/index.js";
export {
  AIMessage,
  type ContentPart,
  HumanMessage,
  type Message,
  type MessageContent,
  type ReasoningPart,
  ScriptedChat,
  type ScriptedResponse,
  SystemMessage,
  ToolCall,
  ToolMessage,
  textOf,
} from "./chat/index.js";
export * from "./errors/index.js";
export { type FromSpecOptions, fromSpec, type Resolved, refResolver } from "./graph/from-spec.js";
export * from "./graph/index.js";
export { toMermaid } from "./graph/mermaid.js";
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
export * from "./json/index.js";
export * from "./memory/index.js";
export * from "./middleware/index.js";
export * from "./state/index.js";
export * from "./stores/index.js";
export * from "./tools/index.js";
export * from "./workspace/index.js";
