/**
 * What the chat integrations' wire-format tests share (openai, anthropic, ollama): one replay
 * server per test file, a tool call as the wire carries it, text cut into stream pieces, and
 * how a stream or a failure is read. Each provider's own wire format (its bodies, events and
 * error bodies) stays in its own fixture.
 *
 * @module
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { ChatStreamChunk } from "../../chat/types.js";
import { ModelProviderError } from "../../errors/index.js";
import { ReplayServer } from "./replay-server.js";

/** A tool call as a provider sends it: its id, its name, and its arguments' JSON text. */
export interface WireCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/** `text` cut into pieces of `size` characters (the last may be shorter). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The replay server of the test file that called {@link setUpReplayServer}. */
export let server: ReplayServer;

/** Start a replay server for the calling test file (reset before each test, closed after all). */
export function setUpReplayServer(): void {
  beforeAll(async () => {
    server = await ReplayServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());
}

/** Every chunk of a chat stream, in order. */
export async function collect(stream: AsyncIterable<ChatStreamChunk>): Promise<ChatStreamChunk[]> {
  const out: ChatStreamChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

/**
 * The `ModelProviderError` a promise rejected with.
 * @throws whatever else it rejected with; an Error when it resolved.
 */
export async function failure(promise: Promise<unknown>): Promise<ModelProviderError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof ModelProviderError) return e;
    throw e;
  }
  throw new Error("expected a ModelProviderError");
}

/** The chunks without their provider `raw` data. */
export const stripRaw = (chunks: ChatStreamChunk[]) => chunks.map(({ raw: _raw, ...rest }) => rest);
