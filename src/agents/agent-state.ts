/**
 * `AgentState`: the state of the built-in ReAct agent.
 *
 * @module
 */
import type { z } from "zod";
import { plainToolCalls } from "../chat/plain-parse.js";
import { chatSchemas, chatSchemasNoCycles } from "../chat/schemas.js";
import type { JsonValue } from "../json/index.js";
import { lazyObject } from "../lazy.js";
import { defineState, messagesField, type StateDefinition } from "../state/define-state.js";
import { buildWithoutCycleMemo, registerTwin } from "../zod-cycles.js";
import { zod } from "../zod-runtime.js";

/** The fields of {@link AgentState}, built on first use (no zod at import: see zod-runtime.ts). */
function agentShape() {
  const z = zod();
  const toolCalls = z.array(chatSchemas().toolCall).default([]);
  // The engine parses a written value with its twin without zod's cycle memoizer (zod-cycles.ts).
  registerTwin(
    toolCalls,
    buildWithoutCycleMemo(() => z.array(chatSchemasNoCycles().toolCall).default([])),
    plainToolCalls,
  );
  return {
    messages: messagesField(),
    toolCalls,
    finalText: z.string().nullable().default(null),
    finalOutput: z.json().nullable().default(null) as z.ZodType<JsonValue | null, unknown>,
  };
}

/** The shape of {@link AgentState}. */
export type AgentStateShape = ReturnType<typeof agentShape>;

/**
 * State of the built-in ReAct agent (see `buildReactAgent`).
 *
 * - `messages`: the conversation, `Message[]` merged by `addMessages` (default `[]`).
 * - `toolCalls`: calls of the last model turn that have not run yet (default `[]`).
 * - `finalText`: answer text of the last model turn; `null` while the model calls tools or after a refusal.
 * - `finalOutput`: the answer parsed into the agent's `outputSchema` (JSON), `null` without one.
 *
 * Extend it with `AgentState.extend({ ... })` to add fields for your own agent graph.
 * (Its schemas are built on its first use, not when nodestep is imported.)
 *
 * @example
 * ```ts
 * const Support = AgentState.extend({ ticketId: z.string().nullable().default(null) });
 * const graph = new Graph(Support).flow(START.to(think), ...);
 * ```
 */
export const AgentState: StateDefinition<AgentStateShape> = lazyObject(() =>
  defineState(agentShape()),
);

/** The value of an {@link AgentState}: `{ messages, toolCalls, finalText, finalOutput }`. */
export type AgentState = typeof AgentState.State;

/**
 * The state definition of an agent whose `finalOutput` is typed by an output schema `O`
 * (`z.output<O> | null`). The run-time definition is {@link AgentState}.
 */
export type TypedAgentState<O> = StateDefinition<
  Omit<AgentStateShape, "finalOutput"> & { finalOutput: z.ZodType<O | null, unknown> }
>;
