/**
 * `toolRunner`: a node that runs the pending tool calls.
 *
 * @module
 */

import { ToolMessage } from "../chat/messages.js";
import type { ToolCall } from "../chat/tool-call.js";
import {
  ContextNotProvidedError,
  GraphConfigError,
  ToolDeniedError,
  ToolExecutionError,
  ToolGroupExecutionError,
  ValidationError,
  ValueError,
} from "../errors/index.js";
import { GraphInterrupt, type NodeContext, type PendingInterrupt } from "../graph/context.js";
import { type Node, node } from "../graph/node.js";
import { traced } from "../graph/tracing.js";
import { isPlainObject, type JsonObject, type JsonValue } from "../json/index.js";
import { attemptSpans } from "../tools/attempt-span.js";
import { callTool, toolResultContent } from "../tools/call-tool.js";
import { ToolContext } from "../tools/tool-context.js";
import {
  type AnyTool,
  appendMessages,
  checkStateFields,
  checkToolList,
  errorMessage,
  errorTypeName,
  jsonEqual,
  readMessages,
} from "./internal.js";
import { emitMessages } from "./stream-events.js";

/**
 * What a tool runner does when a tool call fails (an unknown tool, invalid arguments, or an
 * exception from the tool):
 * - `"raise"`: the error propagates and fails the run; several failing calls raise `ToolGroupExecutionError`;
 * - `"return"`: the model gets `"Tool error: <type>: <message>"` as the tool result;
 * - a function `(error) => string`: the model gets the text it returns.
 */
export type ToolErrorPolicy = "raise" | "return" | ((error: Error) => string);

/** Options of {@link toolRunner}. */
export interface ToolRunnerOptions {
  /** The node's complete tool list (middleware tools are not added). */
  tools: readonly AnyTool[];
  /** What a failed call does; default `"raise"`. */
  toolErrors?: ToolErrorPolicy;
  /** State field the `ToolMessage` results are appended to; it must use `addMessages`. Default `"messages"`. */
  messagesField?: string;
  /** State field the calls are read from; the node clears it. Default `"toolCalls"`. */
  toolCallsField?: string;
}

/** How one call ended. */
type Outcome =
  | { kind: "message"; message: ToolMessage }
  | { kind: "failed"; error: ToolExecutionError; original: Error }
  | { kind: "interrupted"; interrupts: PendingInterrupt[] };

const ALWAYS_RAISE = [ContextNotProvidedError, GraphConfigError];

/**
 * Create a node that runs the pending tool calls.
 *
 * The calls in `toolCallsField` run concurrently. Each result becomes a `ToolMessage`
 * `{ content: '{"result":...}', toolCallId, name, arguments }` (`arguments` are the ones the
 * tool ran with when `beforeTool` middleware changed them, `null` otherwise); the messages are
 * appended to `messagesField` in call order and `toolCallsField` is cleared.
 *
 * Failures: an unknown tool, arguments that are invalid (including a call whose argument text
 * did not parse, `argumentsError`) or an exception from the tool are handled by `toolErrors`.
 * With `"raise"` every failure is a `ToolExecutionError` whose `cause` is the original error
 * (the tool's own exception is wrapped too, so that the error names the tool and the call);
 * one failing call raises its `ToolExecutionError`, several raise a `ToolGroupExecutionError`
 * with each in call order. With `"return"` the model gets `"Tool error: <type>: <message>"`,
 * where `<type>` and `<message>` are those of the tool's own exception, or of the
 * `ToolExecutionError` for an unknown tool or invalid arguments. A function gets that same
 * error and returns the text.
 *
 * Whatever `toolErrors` says: a call denied with `ToolDeniedError` (approval, tool limit)
 * becomes a `ToolMessage` with the reason; `ContextNotProvidedError` and `GraphConfigError`
 * from a tool propagate as they are; a call without a string `id` raises `ToolExecutionError`;
 * a cancelled run stays cancelled.
 *
 * Interrupts: when tools pause (`ctx.interrupt`), all the calls still run; the results of the
 * calls that finished are kept in `ctx.cache` (by call id, saved after each call), and one
 * `GraphInterrupt` with the interrupts of every paused call is raised. When the node runs
 * again, calls whose results are in `ctx.cache` do not run again.
 *
 * With a plain-object state (no `defineState`) the declaration checks are skipped and the
 * whole new message list is written.
 *
 * @param name - node name.
 * @param options - see {@link ToolRunnerOptions}.
 * @returns a graph node.
 * @throws GraphConfigError if two different tools share a name, or the same tool is listed twice.
 * @throws TypeError if `tools` is not an array of tools.
 * @throws ValueError if `toolErrors` is neither `"raise"`, `"return"` nor a function.
 * When the node runs, before any tool runs: `GraphConfigError` if `messagesField` does not use
 * `addMessages` or `toolCallsField` is not declared.
 *
 * @example
 * ```ts
 * const act = toolRunner("act", { tools: [lookupOrder], toolErrors: "return" });
 * ```
 */
export function toolRunner<S = Record<string, unknown>>(
  name: string,
  options: ToolRunnerOptions,
): Node<S> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`toolRunner "${name}": options with a tools list are required`);
  }
  const owner = `toolRunner "${name}"`;
  const byName = checkToolList(owner, options.tools, name);
  const policy = options.toolErrors ?? "raise";
  if (policy !== "raise" && policy !== "return" && typeof policy !== "function") {
    throw new ValueError(
      `${owner}: toolErrors must be "raise", "return" or a function (error) => string, got ${JSON.stringify(policy)}`,
    );
  }
  const messagesField = options.messagesField ?? "messages";
  const toolCallsField = options.toolCallsField ?? "toolCalls";
  const known = byName.size ? [...byName.keys()].join(", ") : "none";

  const runOne = async (call: ToolCall, state: S, ctx: NodeContext): Promise<Outcome> => {
    const tool = byName.get(call.name);
    if (!tool) {
      return failed(
        new ToolExecutionError(
          `Tool call "${call.id}" asked for unknown tool "${call.name}"; known tools: ${known}`,
          { tool: call.name, toolCallId: call.id },
        ),
      );
    }
    if (call.argumentsError !== null && call.argumentsError !== undefined) {
      return failed(
        new ToolExecutionError(
          `Invalid arguments for tool "${call.name}": ${call.argumentsError} (call "${call.id}")`,
          { tool: call.name, toolCallId: call.id },
        ),
      );
    }
    if (!isPlainObject(call.arguments)) {
      return failed(
        new ToolExecutionError(
          `Invalid arguments for tool "${call.name}": the arguments must be a JSON object (call "${call.id}")`,
          { tool: call.name, toolCallId: call.id },
        ),
      );
    }
    const toolCtx = ToolContext.fromNodeContext(ctx, state, {
      toolCallId: call.id,
      toolName: tool.name,
    });
    try {
      // Untraced (the common case): the call alone, without a span's attributes and callbacks.
      const result =
        ctx.trace === null
          ? await callTool(tool, call.arguments as JsonObject, toolCtx)
          : await traced(
              ctx.trace,
              `execute_tool ${tool.name}`,
              {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool.name,
                "gen_ai.tool.call.id": call.id,
              },
              () => callTool(tool, call.arguments as JsonObject, toolCtx),
              undefined,
              (span) => attemptSpans.set(toolCtx, span),
            );
      const ranWith = result.arguments as JsonObject;
      return {
        kind: "message",
        message: ToolMessage({
          content: toolResultContent(result.value as JsonValue),
          toolCallId: call.id,
          name: tool.name,
          arguments: jsonEqual(ranWith, call.arguments) ? null : ranWith,
        }),
      };
    } catch (e) {
      if (e instanceof GraphInterrupt) return { kind: "interrupted", interrupts: e.interrupts };
      if (ctx.signal.aborted) throw e;
      if (e instanceof ToolDeniedError) {
        return {
          kind: "message",
          message: ToolMessage({ content: e.reason, toolCallId: call.id, name: tool.name }),
        };
      }
      if (ALWAYS_RAISE.some((cls) => e instanceof cls)) throw e;
      if (e instanceof ValidationError && isArgumentsError(e)) {
        return failed(
          new ToolExecutionError(`${e.message} (call "${call.id}")`, {
            tool: call.name,
            toolCallId: call.id,
            cause: e,
          }),
        );
      }
      return toolFailure(tool.name, call.id, e);
    }
  };

  // One call's outcome in a turn (made once, not per run: the turn holds what it counts).
  const answer = async (turn: ToolTurn<S>, call: ToolCall): Promise<Outcome> => {
    const { ctx } = turn;
    const cached = ctx.cache[call.id];
    if (cached !== undefined) return { kind: "message", message: cached as unknown as ToolMessage };
    let outcome = await runOne(call, turn.state, ctx);
    if (outcome.kind === "failed" && policy !== "raise") {
      outcome = {
        kind: "message",
        message: ToolMessage({
          content: errorText(policy, outcome.original, owner),
          toolCallId: call.id,
          name: byName.get(call.name)?.name ?? call.name,
        }),
      };
    }
    turn.running--;
    if (outcome.kind !== "message") turn.allAnswered = false;
    if (outcome.kind === "message") {
      (ctx.cache as Record<string, JsonValue>)[call.id] = outcome.message as unknown as JsonValue;
      if (turn.running > 0 || !turn.allAnswered) await ctx.saveCache();
    }
    return outcome;
  };

  const run = async (state: S, ctx: NodeContext): Promise<Record<string, unknown>> => {
    checkStateFields("toolRunner", ctx, messagesField, [
      { option: "toolCallsField", field: toolCallsField },
    ]);
    const history = readMessages("toolRunner", ctx, state, messagesField);
    const calls = readCalls(owner, state, toolCallsField);
    // Calls not yet finished; the last one to finish needs no pending write of its own, since
    // the task's result follows at once (a single-call turn writes one event, not two).
    const turn: ToolTurn<S> = { state, ctx, running: calls.length, allAnswered: true };
    // (A single call, the common case, without Promise.all's promises and array.)
    const outcomes =
      calls.length === 1
        ? [await answer(turn, calls[0]!)]
        : await Promise.all(calls.map((call) => answer(turn, call)));
    // (Loops, not flatMap: no array per outcome.)
    const failures: Error[] = [];
    for (const o of outcomes) if (o.kind === "failed") failures.push(o.error);
    if (failures.length === 1) throw failures[0]!;
    if (failures.length > 1) {
      throw new ToolGroupExecutionError(
        `${failures.length} tool calls failed: ${failures.map((e) => e.message).join(" | ")}`,
        { errors: failures },
      );
    }
    const interrupts: PendingInterrupt[] = [];
    for (const o of outcomes) if (o.kind === "interrupted") interrupts.push(...o.interrupts);
    if (interrupts.length > 0) throw new GraphInterrupt(interrupts);
    const messages = emitMessages(
      ctx,
      outcomes.map((o) => (o as { message: ToolMessage }).message),
    );
    return {
      [messagesField]: appendMessages(ctx, history, messages),
      [toolCallsField]: [],
    };
  };
  return node<S>(run, { name });
}

/** A run of the tool node: its input and what its calls count as they finish. */
interface ToolTurn<S> {
  readonly state: S;
  readonly ctx: NodeContext;
  /** Calls not yet finished. */
  running: number;
  /** Whether every call finished so far was answered with a message. */
  allAnswered: boolean;
}

/** Whether a `ValidationError` from `callTool` is about the arguments (not the result). */
function isArgumentsError(e: ValidationError): boolean {
  return e.message.startsWith("Invalid arguments for tool ");
}

/** A failure where the error the policy sees is the `ToolExecutionError` itself. */
function failed(error: ToolExecutionError): Outcome {
  return { kind: "failed", error, original: error };
}

/** The tool's own exception, wrapped in a `ToolExecutionError` that names the tool and the call. */
function toolFailure(tool: string, callId: string, e: unknown): Outcome {
  const original = e instanceof Error ? e : new Error(String(e));
  if (original instanceof ToolExecutionError) return failed(original);
  const error = new ToolExecutionError(
    `Tool "${tool}" failed on call "${callId}": ${errorTypeName(original)}: ${original.message}`,
    { tool, toolCallId: callId, cause: original },
  );
  return { kind: "failed", error, original };
}

/** The text the model gets for a failed call under `"return"` or a function policy. */
function errorText(policy: ToolErrorPolicy, error: Error, owner: string): string {
  if (policy === "return") return `Tool error: ${errorTypeName(error)}: ${errorMessage(error)}`;
  const text = (policy as (error: Error) => string)(error);
  if (typeof text !== "string") {
    throw new TypeError(
      `${owner}: the toolErrors function must return a string, got ${text === null ? "null" : typeof text}`,
    );
  }
  return text;
}

/**
 * The pending calls of the state, checked: an array of objects, each with a string `id` (a
 * call without one cannot be answered and always raises).
 */
function readCalls(owner: string, state: unknown, field: string): ToolCall[] {
  const value = isPlainObject(state) ? state[field] : undefined;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new GraphConfigError(
      `${owner}: state field "${field}" must hold a list of tool calls, got ${typeof value}`,
    );
  }
  return value.map((c: unknown, i: number) => {
    const call = (isPlainObject(c) ? c : {}) as Partial<ToolCall>;
    if (typeof call.id !== "string") {
      const toolName = typeof call.name === "string" ? call.name : "<unknown>";
      throw new ToolExecutionError(
        `${owner}: tool call ${i} in "${field}" (tool "${toolName}") has no string id, so no result can answer it`,
        { tool: toolName },
      );
    }
    return {
      id: call.id,
      name: typeof call.name === "string" ? call.name : "",
      arguments: (call.arguments ?? {}) as JsonObject,
      argumentsError: call.argumentsError ?? null,
    };
  });
}
