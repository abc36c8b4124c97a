/**
 * `nodestep/ai-sdk-ui`: a graph's runs as the AI SDK's UI message stream, for `useChat`
 * (`@ai-sdk/react`) and any client of that protocol. See docs/ui-stream.md.
 *
 * Needs no `ai` package at run time.
 *
 * @module
 */
export { type ToUIMessagesOptions, toUIMessages } from "./history.js";
export { type UIChatTurn, type UIChatTurnOptions, uiChatTurn } from "./request.js";
export {
  UI_STREAM_HEADERS,
  type UIStreamResponseOptions,
  uiChunksToSse,
  uiStreamResponse,
  writeUIStreamToNode,
} from "./response.js";
export {
  defaultDataChunk,
  toUIMessageChunks,
  UI_STREAM_MODES,
  type UIStreamOptions,
} from "./to-chunks.js";
export type {
  UIApproval,
  UIDataChunk,
  UIDataPart,
  UIFilePart,
  UIFinishReason,
  UIMessage,
  UIMessagePart,
  UIReasoningPart,
  UIRunMetadata,
  UIStepStartPart,
  UIStreamChunk,
  UITextPart,
  UIToolPart,
  UIUsage,
} from "./types.js";
