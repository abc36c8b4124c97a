/**
 * `nodestep/models`: {@link chatModel}, one factory from `"provider:model"` strings to chat
 * models (`openai:`, `anthropic:`, `ollama:`, any AI SDK provider package or one registered
 * with {@link registerProvider}).
 *
 * @module
 */

export {
  AI_SDK_PACKAGE_ALIASES,
  type AISdkProvider,
  type ChatModelOptions,
  chatModel,
  type ProviderFactory,
  parseModelSpec,
  registerProvider,
} from "./chat-model.js";
export { missingKeyVariable, PROVIDER_KEY_VARIABLES } from "./credentials.js";
