/**
 * `nodestep/ollama`: {@link OllamaChat}, a chat model on a local or remote Ollama server. Needs
 * the optional peer dependency `ollama` (`npm install ollama`), loaded only when the first call
 * is made. (Ollama's OpenAI-compatible `/v1` endpoint also works with `OpenAIChat`.)
 *
 * @module
 */

export type { ProviderCallOptions } from "../internal/call.js";
export { OllamaChat, type OllamaChatOptions } from "./ollama-chat.js";
export { OllamaEmbeddings, type OllamaEmbeddingsOptions } from "./ollama-embeddings.js";
