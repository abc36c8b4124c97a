/**
 * nodestep: build LLM agents as graphs.
 *
 * The root module holds the graph engine, state, nodes and routing, tools, agents,
 * middleware, the in-memory state store, `ScriptedChat` and the errors. Chat types live in
 * `nodestep/chat`; each integration has its own subpath.
 *
 * @module
 */

export * from "./agents/index.js";
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
export * from "./graph/index.js";
// json/: all but jsonExact (internal)
export {
  findNonJson,
  isPlainObject,
  JSON_ENVELOPE_DEPTH,
  type JsonObject,
  type JsonValue,
  MAX_JSON_DEPTH,
  prototypeKey,
  tooDeep,
} from "./json/index.js";
export * from "./memory/index.js";
export * from "./middleware/index.js";
export * from "./state/index.js";
export * from "./stores/index.js";
export * from "./tools/index.js";
export * from "./workspace/index.js";
