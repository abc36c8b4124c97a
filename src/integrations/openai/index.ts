/**
 * `nodestep/openai`: {@link OpenAIChat}, a chat model on OpenAI's Chat Completions API (and
 * every server that speaks it) or its Responses API. Needs the optional peer dependency `openai` (`npm install openai`),
 * loaded only when the first call is made.
 *
 * @module
 */

export type { ProviderCallOptions } from "../internal/call.js";
export { openaiUsage, schemaName } from "./chat-completions.js";
export { OpenAIChat, type OpenAIChatOptions } from "./openai-chat.js";
export { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "./openai-embeddings.js";
