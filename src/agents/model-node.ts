/**
 * `modelNode`: a node that calls a chat model. Its parts: one chat call (model-call.ts), the
 * response's checks (model-response.ts), structured output (structured-output.ts).
 *
 * @module
 */

import type { z } from "zod";
import { AIMessage, type Message, SystemMessage } from "../chat/messages.js";
import { type ReasoningOptions, textOf } from "../chat/parts.js";
import {
  type Chat,
  ChatRequest,
  type ChatResponse,
  type ToolChoice,
  type ToolDefinition,
} from "../chat/types.js";
import { ValueError } from "../errors/index.js";
import type { NodeContext } from "../graph/context.js";
import { type Node, node } from "../graph/node.js";
import {
  hasRewriteHistory,
  historyChange,
  runRewriteHistory,
} from "../middleware/history-hooks.js";
import { storedCall, withMiddlewareCalls } from "../middleware/middleware-calls.js";
import { hasHook, runAfterModel, runBeforeModel } from "../middleware/run-hooks.js";
import type { Middleware, MiddlewareCall, ModelMiddlewareContext } from "../middleware/types.js";
import { runWrapModelCall } from "../middleware/wrap-hooks.js";
import { checkZodType } from "../zod-runtime.js";
import { checkHistory, repairHistory as repairCopy } from "./history.js";
import {
  type AnyTool,
  appendMessages,
  checkReasoning,
  checkStateFields,
  checkToolList,
  readMessages,
} from "./internal.js";
import { callModel } from "./model-call.js";
import { checkToolCalls, withBilledModel } from "./model-response.js";
import { emitMessages } from "./stream-events.js";
import { type OnInvalid, outputJsonSchema, parseOutput } from "./structured-output.js";

/** Options of {@link modelNode}. */
export interface ModelNodeOptions<O extends z.ZodType | null = null> {
  /** Chat model to call; it must have a `model` name. */
  chat: Chat;
  /** System message prepended to every request; default none. */
  systemPrompt?: string | null;
  /** The node's complete tool list (middleware tools are not added); default `[]`. */
  tools?: readonly AnyTool[];
  /** The request's tool choice: `"auto"`, `"required"`, `"none"` or a tool name; default `null` (none sent). */
  toolChoice?: ToolChoice;
  /** Call `chat.stream` and send each chunk as a `"tokens"` event; default `false`. */
  stream?: boolean;
  /**
   * How much the model may reason, sent as the request's `reasoning` on every call:
   * `{ effort: "minimal" | "low" | "medium" | "high" }` (OpenAI `reasoning_effort` /
   * `reasoning.effort`, Ollama `think`) or `{ budgetTokens }`, a number of tokens (Anthropic
   * `thinking.budget_tokens`: at least 1024, below the chat's `maxTokens`). An integration
   * without the setting asked for raises `ValueError` when it is called. A `beforeModel` hook
   * may change it per call. Default `null`: the provider's default.
   */
  reasoning?: ReasoningOptions | null;
  /** Send a repaired copy of an inconsistent history instead of raising `ChatHistoryError`; default `false`. */
  repairHistory?: boolean;
  /** Zod schema the final answer (JSON text) is parsed into and stored in `finalOutputField`; default none. */
  outputSchema?: O;
  /** For an answer that does not validate: `"raise"` (default) `StructuredOutputError`, or `"emit"` a `StructuredOutputEvent` and store `null`. */
  onInvalid?: OnInvalid;
  /** State field of the conversation; it must use `addMessages`. Default `"messages"`. */
  messagesField?: string;
  /** State field the requested tool calls are written to. Default `"toolCalls"`. */
  toolCallsField?: string;
  /** State field the answer text is written to. Default `"finalText"`. */
  finalTextField?: string;
  /** State field the parsed answer is written to (only with `outputSchema`). Default `"finalOutput"`. */
  finalOutputField?: string;
}

/**
 * Create a node that calls a chat model.
 *
 * When it runs, the node:
 * 1. checks the state (a declared state only): the messages field must use `addMessages`, and
 *    every field it writes must be declared (`GraphConfigError`); then runs the
 *    `rewriteHistory` hooks of the run's middleware (such as `SummarizationMiddleware`), and
 *    goes on with the conversation they return;
 * 2. checks that the history is consistent (`ChatHistoryError`), or with `repairHistory`
 *    sends a repaired copy (the state is not changed);
 * 3. builds a `ChatRequest`: the system prompt first, then the messages; the tools'
 *    definitions; `toolChoice`; the output schema as JSON schema; `reasoning` when set;
 * 4. runs the `beforeModel` hooks of the run's middleware, calls `chat.complete` (or
 *    `chat.stream`, each chunk sent as a `"tokens"` event) inside the `wrapModelCall` hooks
 *    (each call of their `next` is one attempt, one `chat <model>` span), then the
 *    `afterModel` hooks;
 * 5. appends the response as an `AIMessage` to the messages field (after the change a
 *    `rewriteHistory` hook made, in the same update: its removals and new messages, then the
 *    answer) and writes the tool calls
 *    and the answer text (`null` when the model calls tools or refuses); with an output schema,
 *    the answer parsed as JSON and validated (`null` on tool-call or refusal turns).
 *
 * The response's `raw` field is not stored. When the response reports token usage, the
 * message's `responseMetadata.model` records the model it is billed for (the response's
 * `model`, else `chat.model`), unless the metadata names one already; the usage totals
 * (`UsageLedger`) price the message by it. Model calls the middleware made itself and
 * recorded (`ctx.recordCall`, such as `SummarizationMiddleware`'s summary call) are stored
 * in `responseMetadata.middlewareCalls` (`[{ middleware, model, usage }]`), so the usage
 * totals and run metrics count them. With a plain-object state (no `defineState`) the
 * declaration checks are skipped and the whole new message list is written.
 *
 * @param name - node name.
 * @param options - see {@link ModelNodeOptions}.
 * @returns a graph node.
 * @throws GraphConfigError if two different tools share a name, or the same tool is listed twice.
 * @throws TypeError if `chat` has no `model` string, or an entry of `tools` is not a tool.
 * @throws ValueError if `onInvalid` is neither `"raise"` nor `"emit"`, or `reasoning` is neither
 *   `{ effort }` with a known effort nor `{ budgetTokens }` with a positive integer.
 * When the node runs: `GraphConfigError` (state checks), `ChatHistoryError`,
 * `StructuredOutputError`, `TypeError` when a model hook replaced the request or the response
 * with another type, and whatever the chat model raises.
 *
 * @example
 * ```ts
 * const think = modelNode("think", { chat, tools: [lookupOrder], systemPrompt: "You help with orders." });
 * const act = toolRunner("act", { tools: [lookupOrder] });
 * const graph = new Graph(AgentState).flow(
 *   START.to(think),
 *   think.to(when((s) => s.toolCalls.length > 0, act, { otherwise: END })),
 *   act.to(think),
 * );
 * ```
 */
export function modelNode<S = Record<string, unknown>, O extends z.ZodType | null = null>(
  name: string,
  options: ModelNodeOptions<O>,
): Node<S> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`modelNode "${name}": options with a chat model are required`);
  }
  const owner = `modelNode "${name}"`;
  const chat = options.chat;
  if (
    typeof chat !== "object" ||
    chat === null ||
    typeof (chat as { model?: unknown }).model !== "string"
  ) {
    throw new TypeError(`${owner}: chat must be a chat model with a "model" name string`);
  }
  const tools = [...checkToolList(owner, options.tools ?? [], name).values()];
  const onInvalid = options.onInvalid ?? "raise";
  if (onInvalid !== "raise" && onInvalid !== "emit") {
    throw new ValueError(
      `${owner}: onInvalid must be "raise" or "emit", got ${JSON.stringify(onInvalid)}`,
    );
  }
  const outputSchema = (options.outputSchema ?? null) as z.ZodType | null;
  if (outputSchema !== null && !checkZodType(outputSchema)) {
    throw new TypeError(`${owner}: outputSchema must be a zod schema`);
  }
  const jsonSchema = outputSchema === null ? null : outputJsonSchema(owner, outputSchema);
  const schemaName =
    jsonSchema !== null && typeof jsonSchema.title === "string" ? jsonSchema.title : "output";
  const systemPrompt = options.systemPrompt ?? null;
  const toolChoice = options.toolChoice ?? null;
  const reasoning = checkReasoning(owner, options.reasoning);
  const stream = options.stream ?? false;
  const repair = options.repairHistory ?? false;
  const messagesField = options.messagesField ?? "messages";
  const toolCallsField = options.toolCallsField ?? "toolCalls";
  const finalTextField = options.finalTextField ?? "finalText";
  const finalOutputField = options.finalOutputField ?? "finalOutput";
  const written = [
    { option: "toolCallsField", field: toolCallsField },
    { option: "finalTextField", field: finalTextField },
    ...(outputSchema !== null ? [{ option: "finalOutputField", field: finalOutputField }] : []),
  ];
  const definitions = tools.map((t) => t.definition());

  const run = async (state: S, ctx: NodeContext): Promise<Record<string, unknown>> => {
    checkStateFields("modelNode", ctx, messagesField, written);
    const stored = readMessages("modelNode", ctx, state, messagesField);
    const middleware = ctx.middleware as readonly Middleware[];
    const calls: MiddlewareCall[] = [];
    const mctx: ModelMiddlewareContext = {
      model: chat.model,
      node: ctx,
      state,
      // Bound, not an arrow: a named closure per call costs a name set on it in the build.
      recordCall: pushCall.bind(null, calls),
    };
    const rewritten = hasRewriteHistory(middleware)
      ? await runRewriteHistory(middleware, stored, mctx)
      : null;
    const history = rewritten ?? stored;
    const change = rewritten === null ? null : historyChange(stored, rewritten);
    let sent: Message[];
    if (repair) sent = repairCopy(history);
    else {
      checkHistory(history, ctx.node, ctx.graphName);
      sent = history.slice();
    }
    if (systemPrompt !== null) sent.unshift(SystemMessage({ content: systemPrompt }));
    let request = ChatRequest({
      messages: sent,
      tools: definitions.slice(),
      toolChoice,
      outputSchema: jsonSchema,
      reasoning,
    });
    // (A hook no middleware has is not called: each is an async call and an await per model call.)
    if (hasHook(middleware, "beforeModel"))
      request = await runBeforeModel(middleware, request, mctx);
    let attempt = 0;
    let response: ChatResponse = await runWrapModelCall(
      middleware,
      request,
      (sending: ChatRequest): Promise<ChatResponse> =>
        callModel(chat, sending, stream, ++attempt, ctx),
      mctx,
    );
    if (hasHook(middleware, "afterModel"))
      response = await runAfterModel(middleware, response, mctx);
    const toolCalls = checkToolCalls(response.toolCalls, chat.model, name);
    const ai = AIMessage({
      content: response.content,
      refusal: response.refusal,
      toolCalls,
      reasoning: response.reasoning,
      finishReason: response.finishReason,
      usage: response.usage,
      responseMetadata: withMiddlewareCalls(withBilledModel(response, chat.model), calls),
    });
    const answered = toolCalls.length === 0 && response.refusal === null;
    const update: Record<string, unknown> = {
      [messagesField]: appendMessages(
        ctx,
        stored,
        change === null || change.length === 0 ? [ai] : [...change, ai],
      ),
      [toolCallsField]: toolCalls,
      [finalTextField]: answered ? textOf(response.content) : null,
    };
    if (outputSchema !== null) {
      update[finalOutputField] = answered
        ? parseOutput(outputSchema, schemaName, textOf(response.content), onInvalid, ctx)
        : null;
    }
    // The answer as a "messages" event, now that the node writes it (with its id, when streamed).
    if (ctx.streamModes.includes("messages"))
      update[messagesField] = appendMessages(ctx, history, emitMessages(ctx, [ai]));
    return update;
  };
  // The tools it offers the model, as JSON (`{ name, description, inputSchema }`): the server
  // lists them at GET /api/tools, and the studio builds approval forms from their schemas.
  return Object.assign(node<S>(run, { name }), {
    toolDefinitions: definitions as readonly ToolDefinition[],
  });
}

/** Keep a middleware's call record (`recordCall`), as stored. */
function pushCall(calls: MiddlewareCall[], call: MiddlewareCall): void {
  calls.push(storedCall(call));
}
