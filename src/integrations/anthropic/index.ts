/**
 * `nodestep/anthropic`: {@link AnthropicChat}, a chat model on Anthropic's Messages API. Needs
 * the optional peer dependency `@anthropic-ai/sdk` (`npm install @anthropic-ai/sdk`), loaded only
 * when the first call is made.
 *
 * @module
 */

export type { ProviderCallOptions } from "../internal/call.js";
export {
  AnthropicChat,
  type AnthropicChatOptions,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
} from "./anthropic-chat.js";
export { anthropicFinishReason, anthropicUsage } from "./anthropic-wire.js";
