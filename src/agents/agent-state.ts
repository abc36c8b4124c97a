/**
 * `AgentState`: the state of the built-in ReAct agent.
 *
 * @module
 */
import { z } from "zod";
import { ToolCallSchema } from "../chat/tool-call.js";
import type { JsonValue } from "../json/index.js";
import { defineState, messagesField, type StateDefinition } from "../state/define-state.js";

const finalOutputSchema = z.json().nullable().default(null) as z.ZodType<JsonValue | null, unknown>;

const agentShape = {
  messages: messagesField(),
  toolCalls: z.array(ToolCallSchema).default([]),
  finalText: z.string().nullable().default(null),
  finalOutput: finalOutputSchema,
};

/** The shape of {@link AgentState}. */
export type AgentStateShape = typeof agentShape;

/**
 * State of the built-in ReAct agent (see `buildReactAgent`).
 *
 * - `messages`: the conversation, `Message[]` merged by `addMessages` (default `[]`).
 * - `toolCalls`: calls of the last model turn that have not run yet (default `[]`).
 * - `finalText`: answer text of the last model turn; `null` while the model calls tools or after a refusal.
 * - `finalOutput`: the answer parsed into the agent's `outputSchema` (JSON), `null` without one.
 *
 * Extend it with `AgentState.extend({ ... })` to add fields for your own agent graph.
 *
 * @example
 * ```ts
 * const Support = AgentState.extend({ ticketId: z.string().nullable().default(null) });
 * const graph = new Graph(Support).flow(START.to(think), ...);
 * ```
 */
export const AgentState: StateDefinition<AgentStateShape> = defineState(agentShape);

/** The value of an {@link AgentState}: `{ messages, toolCalls, finalText, finalOutput }`. */
export type AgentState = typeof AgentState.State;

/**
 * The state definition of an agent whose `finalOutput` is typed by an output schema `O`
 * (`z.output<O> | null`). The run-time definition is {@link AgentState}.
 */
export type TypedAgentState<O> = StateDefinition<
  Omit<AgentStateShape, "finalOutput"> & { finalOutput: z.ZodType<O | null, unknown> }
>;
