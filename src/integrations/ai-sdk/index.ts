/**
 * `nodestep/ai-sdk`: {@link fromAISdk}, any AI SDK language model (the `@ai-sdk/provider`
 * specification V3 or V4: `@ai-sdk/google`, `@ai-sdk/mistral`, `@ai-sdk/amazon-bedrock`,
 * `@ai-sdk/openai-compatible`…) as a nodestep `Chat`. The provider packages are optional peer
 * dependencies: install the one you use.
 *
 * @module
 */

export type { ProviderCallOptions } from "../internal/call.js";
export {
  AISdkChat,
  type AISdkChatOptions,
  type AISdkLanguageModel,
  fromAISdk,
} from "./ai-sdk-chat.js";
export { finishReasonOf, mapAISdkError, usageFromSdk } from "./from-result.js";
export {
  AI_SDK_DEFAULT_UNSUPPORTED,
  AI_SDK_PART_SUPPORT,
  type AISdkPartPlace,
  type AISdkPartRule,
  type AISdkPartSupportRow,
} from "./part-support.js";
