/**
 * The token counts of a {@link Usage}, in the order `chatSchemas().usage` declares them (for
 * nodestep's own code: copying, checking and forwarding a usage key by key).
 *
 * @module
 */
import type { Usage } from "./parts.js";

/** The number keys of {@link Usage}, in schema order (all counts of tokens). */
export const USAGE_NUMBER_KEYS = [
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "cachedInputTokens",
  "reasoningTokens",
] as const satisfies readonly (keyof Usage)[];
