/**
 * `nodestep/openai`: {@link OpenAIChat}, a chat model on OpenAI's Chat Completions API and
 * every server that speaks it. Needs the optional peer dependency `openai` (`npm install openai`),
 * loaded only when the first call is made.
 *
 * @module
 */

export type { ProviderCallOptions } from "../internal/call.js";
export { OpenAIChat, type OpenAIChatOptions, schemaName } from "./openai-chat.js";
export { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "./openai-embeddings.js";
