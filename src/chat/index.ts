/**
 * `nodestep/chat`: messages, requests and responses, tool calls, stream assembly and the {@link Chat} interface.
 *
 * @module
 */

export { assembleStream } from "./assemble-stream.js";
export {
  type FallbackChatOptions,
  fallbackChat,
  isFallbackError,
  type SkippedModel,
  type SkipReason,
} from "./fallback-chat.js";
export * from "./messages.js";
export * from "./parts.js";
export { ScriptedChat, type ScriptedResponse } from "./scripted-chat.js";
export * from "./tool-call.js";
export * from "./types.js";
