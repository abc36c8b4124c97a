/**
 * `callModel`: one attempt of `modelNode`'s chat call (one call of a `wrapModelCall` hook's
 * `next`), in its own `chat <model>` span.
 *
 * @module
 */
import { assembleStream } from "../chat/assemble-stream.js";
import { type Chat, type ChatRequest, ChatResponse } from "../chat/types.js";
import type { NodeContext } from "../graph/context.js";
import { traced } from "../graph/tracing.js";
import { markStreamed } from "../middleware/wrap-hooks.js";

/** The emit options of a `"tokens"` event (one object for every chunk). */
const TOKENS = { mode: "tokens" } as const;

/**
 * Send `request` to `chat`: `chat.complete`, or with `stream` `chat.stream`, each chunk sent as
 * a `"tokens"` event and the chunks assembled into one response. The call runs in a span
 * `chat <model>` (OpenTelemetry GenAI attributes: operation, request and response model,
 * finish reasons, input/output token counts; `nodestep.attempt` from the second `attempt` on,
 * counted from 1), aborted by the node's signal.
 *
 * @returns the response, as a `ChatResponse`.
 * @throws whatever the chat model raises; an error after some chunks were sent is marked
 *   streamed (`markStreamed`), so that `ModelRetryMiddleware` does not send its tokens twice.
 */
export function callModel(
  chat: Chat,
  request: ChatRequest,
  stream: boolean,
  attempt: number,
  ctx: NodeContext,
): Promise<ChatResponse> {
  // Untraced, unstreamed (the common case): the call alone, without the span's attributes
  // and callbacks made for nothing.
  if (ctx.trace === null && !stream) return complete(chat, request, ctx.signal);
  return traced(
    ctx.trace,
    `chat ${chat.model}`,
    {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": chat.model,
      ...(attempt > 1 ? { "nodestep.attempt": attempt } : {}),
    },
    async () => {
      if (!stream) return ChatResponse(await chat.complete(request, { signal: ctx.signal }));
      const sent = { chunks: 0 };
      try {
        return await assembleStream(chat.stream(request, { signal: ctx.signal }), {
          onChunk: (chunk) => {
            sent.chunks++;
            ctx.emit(chunk, TOKENS);
          },
        });
      } catch (e) {
        // Its tokens are out: retrying would send them twice (see ModelRetryMiddleware).
        if (sent.chunks > 0) markStreamed(e);
        throw e;
      }
    },
    (span, r) => {
      if (r.model !== null) span.setAttribute("gen_ai.response.model", r.model);
      if (r.finishReason !== null)
        span.setAttribute("gen_ai.response.finish_reasons", [r.finishReason]);
      const input = r.usage.inputTokens;
      const output = r.usage.outputTokens;
      if (typeof input === "number") span.setAttribute("gen_ai.usage.input_tokens", input);
      if (typeof output === "number") span.setAttribute("gen_ai.usage.output_tokens", output);
    },
  );
}

/** One `chat.complete` call as a `ChatResponse` (what the traced path does inside its span). */
async function complete(
  chat: Chat,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<ChatResponse> {
  return ChatResponse(await chat.complete(request, { signal }));
}
