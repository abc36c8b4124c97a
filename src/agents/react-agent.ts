/**
 * `buildReactAgent` and `runAgent`: the ready-made tool-calling agent.
 *
 * @module
 */
import type { z } from "zod";
import { HumanMessage } from "../chat/messages.js";
import type { ReasoningOptions } from "../chat/parts.js";
import type { Chat } from "../chat/types.js";
import { RunInterruptedError } from "../errors/index.js";
import type { GraphOptions } from "../graph/graph.js";
import { Graph } from "../graph/graph.js";
import { START } from "../graph/node.js";
import { END, when } from "../graph/routing.js";
import type { RunOptions, RunResult } from "../graph/types.js";
import type { JsonValue } from "../json/index.js";
import { middlewareTools } from "../middleware/run-hooks.js";
import { ToolLimitMiddleware } from "../middleware/tool-limit.js";
import type { Middleware } from "../middleware/types.js";
import type { StateStore } from "../stores/types.js";
import { AgentState, type TypedAgentState } from "./agent-state.js";
import { refuseInputAfterOpenCalls } from "./history.js";
import { type AnyTool, checkReasoning, checkToolList } from "./internal.js";
import { modelNode } from "./model-node.js";
import { type ToolErrorPolicy, toolRunner } from "./tool-runner.js";

/** Options of {@link buildReactAgent}. */
export interface ReactAgentOptions<O extends z.ZodType | null = null> {
  /** Tools the model may call; may be empty. Required. */
  tools: readonly AnyTool[];
  /** Graph name; default `"agent"`. */
  name?: string;
  /** System message prepended to every model call; default none. */
  systemPrompt?: string | null;
  /** Extra middleware, after the built-in `ToolLimitMiddleware`; their `tools()` are added to the agent's tools. Default `[]`. */
  middleware?: readonly Middleware[];
  /** What a failed tool call does, as in `toolRunner`; default `"raise"`. */
  toolErrors?: ToolErrorPolicy;
  /**
   * How much the model may reason, sent as the `reasoning` of every model call (as
   * `modelNode`'s option): `{ effort: "minimal" | "low" | "medium" | "high" }` (OpenAI, Ollama)
   * or `{ budgetTokens }` (Anthropic extended thinking: at least 1024 tokens, below the chat's
   * `maxTokens`). Default `null`: the provider's default.
   */
  reasoning?: ReasoningOptions | null;
  /** Stream model calls as `"tokens"` events; default `false`. */
  stream?: boolean;
  /** Zod schema the final answer is parsed into (`state.finalOutput`); an invalid answer raises `StructuredOutputError`. Default none. */
  outputSchema?: O;
  /** Superstep limit per call; default `25`. */
  maxSteps?: number;
  /** Tool-call budget for one run and its resumes, kept by a `ToolLimitMiddleware`; default `50`. */
  maxToolCalls?: number;
  /** Workspace exposed to tools; default none. */
  workspace?: unknown;
  /** Store that enables threads, interrupts and resume; default none. */
  stateStore?: StateStore | null;
  /** Long-term memory across threads, as for `Graph` (`ctx.memoryStore`); default none. */
  memoryStore?: GraphOptions["memoryStore"];
  /** OpenTelemetry tracer, as for `Graph` (`true`: the registered provider's); default none. */
  tracer?: GraphOptions["tracer"];
  /** How long a run's lease on its thread lasts without renewal, in ms, as for `Graph`; default 30,000. */
  leaseTtlMs?: number;
}

/** The `finalOutput` type of an agent: the output schema's type, or any JSON value without one. */
export type AgentOutput<O> = O extends z.ZodType ? z.output<O> : JsonValue;

/** The graph built by {@link buildReactAgent}: an {@link AgentState} graph whose `finalOutput` is typed by the output schema. */
export type ReactAgent<O extends z.ZodType | null = null> = Graph<TypedAgentState<AgentOutput<O>>>;

/**
 * Build a tool-calling agent graph.
 *
 * The graph runs on {@link AgentState} with two nodes: `think` (a `modelNode`) and `act` (a
 * `toolRunner`). `think` runs first; while the model asks for tools, `act` runs them and
 * `think` runs again; an answer without tool calls ends the run. Both nodes get `tools`
 * followed by the `tools()` of each middleware. The graph's middleware is a
 * `ToolLimitMiddleware({ maxToolCalls })` followed by `middleware`; calls over the budget are
 * denied and the model is told in a tool message. New input on a thread whose messages end in
 * tool calls without results (a pending approval, a stopped tool turn) is refused with
 * `PendingToolCallsError` and nothing of the run is written (`GraphOptions.checkInput`; a
 * rollback its `onBusy: "rollback"` did first stays, and the message says so).
 *
 * @param chat - chat model to call.
 * @param options - see {@link ReactAgentOptions}; `tools` is required.
 * @returns the graph; run it with {@link runAgent} or `graph.invoke({ messages: [...] })`.
 * @throws GraphConfigError if two different tools share a name, or the same tool is listed
 *   twice, also through a middleware.
 * @throws TypeError if `chat` has no `model` string, `tools` is not an array of tools, or
 *   `middleware` is not an array; ValueError if `maxSteps` or `maxToolCalls` is out of range,
 *   or `reasoning` is neither `{ effort }` with a known effort nor `{ budgetTokens }` with a
 *   positive integer.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, {
 *   tools: [getOrderStatus],
 *   systemPrompt: "You answer questions about orders.",
 *   reasoning: { effort: "low" },
 * });
 * console.log(await runAgent(agent, "Where is order A-1001?"));
 * ```
 */
export function buildReactAgent<O extends z.ZodType | null = null>(
  chat: Chat,
  options: ReactAgentOptions<O>,
): ReactAgent<O> {
  if (typeof options !== "object" || options === null || options.tools === undefined) {
    throw new TypeError(
      "buildReactAgent(chat, options): options.tools is required (an array of tools, possibly empty)",
    );
  }
  const name = options.name ?? "agent";
  const owner = `buildReactAgent "${name}"`;
  const middleware = options.middleware ?? [];
  if (!Array.isArray(middleware)) {
    throw new TypeError(`${owner}: middleware must be an array of middleware objects`);
  }
  checkToolList(owner, options.tools, undefined);
  const tools = [...options.tools, ...middlewareTools(middleware)];
  checkToolList(`${owner} (its tools and those of its middleware)`, tools, undefined);
  const limit = ToolLimitMiddleware({ maxToolCalls: options.maxToolCalls ?? 50 });
  const think = modelNode<AgentState, z.ZodType | null>("think", {
    chat,
    tools,
    systemPrompt: options.systemPrompt ?? null,
    stream: options.stream ?? false,
    reasoning: checkReasoning(owner, options.reasoning),
    outputSchema: (options.outputSchema ?? null) as z.ZodType | null,
  });
  const act = toolRunner<AgentState>("act", {
    tools,
    ...(options.toolErrors !== undefined ? { toolErrors: options.toolErrors } : {}),
  });
  // Named, so that the studio and toMermaid label the edge with it.
  const hasToolCalls = (s: AgentState) => s.toolCalls.length > 0;
  const graph = new Graph(AgentState, {
    name,
    stateStore: options.stateStore ?? null,
    workspace: options.workspace ?? null,
    memoryStore: options.memoryStore ?? null,
    maxSteps: options.maxSteps ?? 25,
    middleware: [limit, ...middleware],
    checkInput: refuseInputAfterOpenCalls,
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
  }).flow(START.to(think), think.to(when(hasToolCalls, act, { otherwise: END })), act.to(think));
  return graph as unknown as ReactAgent<O>;
}

/** What {@link runAgent} needs of a graph: a name and `invoke` on a state with `messages` and `finalText`. */
export interface AgentGraph {
  readonly name: string;
  invoke(
    input: { messages: HumanMessage[] },
    options?: RunOptions,
  ): Promise<RunResult<{ finalText?: string | null }>>;
}

/**
 * Send one user message to an agent and return its final text.
 *
 * Runs `graph.invoke({ messages: [HumanMessage({ content: message })] }, options)`.
 *
 * @param graph - an agent graph, usually from {@link buildReactAgent} (any graph with
 *   `messages` and `finalText` fields).
 * @param message - the user message.
 * @param options - passed to `graph.invoke`: `threadId`, `context`, `signal`, …
 * @returns the final text, or `""` when there is none, as after a refusal.
 * @throws TypeError if `message` is not a string.
 * @throws RunInterruptedError if the run paused for human input; resume with
 *   `graph.invoke(null, { threadId, resume: { [key]: answer } })`.
 * @example
 * ```ts
 * const answer = await runAgent(agent, "How many mugs are left?", { context: inventory });
 * ```
 */
export async function runAgent<C = unknown>(
  graph: AgentGraph,
  message: string,
  options: RunOptions<C> = {},
): Promise<string> {
  if (!graph || typeof (graph as { invoke?: unknown }).invoke !== "function") {
    throw new TypeError(
      "runAgent(graph, message): graph must be a Graph, such as one from buildReactAgent",
    );
  }
  if (typeof message !== "string") {
    throw new TypeError(
      `runAgent(graph, message): message must be a string, got ${message === null ? "null" : typeof message}`,
    );
  }
  const result = await graph.invoke(
    { messages: [HumanMessage({ content: message })] },
    options as RunOptions,
  );
  if (result.status === "interrupted") {
    const keys = result.interrupts.map((i) => JSON.stringify(i.key));
    const answers = keys.map((k) => `${k}: <answer>`).join(", ");
    throw new RunInterruptedError(
      `Agent "${graph.name}" paused for human input (interrupt ${keys.join(", ")}); answer with graph.invoke(null, { threadId: ${JSON.stringify(result.threadId)}, resume: { ${answers} } })`,
      { threadId: result.threadId, interrupts: result.interrupts },
    );
  }
  return result.state.finalText ?? "";
}
