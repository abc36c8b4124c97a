/**
 * Test helpers for chat integrations: the {@link describeChatConformance} suite (vitest) and a
 * {@link ReplayServer} that replays a provider's wire format on 127.0.0.1.
 *
 * @module
 */

export { HashEmbeddings, type HashEmbeddingsOptions } from "../../memory/hash-embeddings.js";
export {
  describeMemoryStoreContract,
  type MemoryStoreContractOptions,
  type MemoryStoreContractStoreOptions,
} from "../../memory/testing/contract.js";
export {
  describeStateStoreContract,
  type StateStoreContractOptions,
} from "../../stores/testing/contract.js";
export {
  type ConformanceOptions,
  type ConformanceScenario,
  describeChatConformance,
} from "./conformance.js";
export type {
  ConformancePart,
  PartsConformanceOptions,
  ReasoningSupport,
} from "./conformance-parts.js";
export {
  ndjsonLines,
  type RecordedRequest,
  type ReplayResponse,
  ReplayServer,
  type Responder,
  sseEvents,
} from "./replay-server.js";
