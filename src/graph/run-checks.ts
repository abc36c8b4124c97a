/**
 * A run's arguments checked against each other before anything runs: a `Command` input, `null`
 * input, resume answers and static breakpoints need a thread, and a `Command`'s resume answers
 * are given once and not with a `goto`. (The options' own shapes: `run-options.ts`.)
 *
 * @module
 */
import { ValueError } from "../errors/index.js";
import type { StateDefinition } from "../state/define-state.js";
import { resolveBreakpoints } from "./breakpoints.js";
import type { CompiledFlow } from "./compile.js";
import type { Graph, GraphInput } from "./graph.js";
import type { FieldSchema } from "./io-schema.js";
import type { Command } from "./routing.js";
import type { RunOptions } from "./types.js";

/**
 * Check a run's input, resume answers and breakpoints against its thread.
 * @returns the run's static breakpoints (`resolveBreakpoints`), or `null` for none.
 * @throws ValueError naming what was given that the run cannot use; what `resolveBreakpoints`
 *   throws.
 */
export function checkRunArguments<D extends StateDefinition | null>(
  graph: Graph<D, FieldSchema | undefined>,
  flow: CompiledFlow,
  input: GraphInput<D>,
  command: Command | null,
  options: RunOptions,
  threadId: string | null,
): ReturnType<typeof resolveBreakpoints> {
  if (threadId === null && command) {
    throw new ValueError(
      `Graph "${graph.name}": a Command as input continues a thread; pass the threadId of the thread it continues`,
    );
  }
  if (command && command.resume !== null && options.resume !== undefined) {
    throw new ValueError(
      `Graph "${graph.name}": resume answers were given both in the Command and in the run options; give them once`,
    );
  }
  if (command && command.resume !== null && command.goto !== null) {
    throw new ValueError(
      `Graph "${graph.name}": a Command with goto sets the tasks that run next, so the interrupts of the paused ones cannot be answered; give resume or goto, not both`,
    );
  }
  if (threadId === null && (input === null || input === undefined)) {
    throw new ValueError(
      `Graph "${graph.name}": invoke(null) continues a thread; pass an input, or a threadId with a state store`,
    );
  }
  if (threadId === null && options.resume !== undefined) {
    throw new ValueError(
      `Graph "${graph.name}": resume answers need the threadId of the paused run`,
    );
  }
  // Before the run asks for the thread: a busy-thread policy must not stop (or roll back)
  // another run for a call that cannot run.
  if (!command && input !== null && input !== undefined && options.resume !== undefined) {
    throw new ValueError(
      `Graph "${graph.name}": resume answers go with invoke(null, { threadId, resume }), not with new input`,
    );
  }
  const breakpoints = resolveBreakpoints(graph.name, flow, graph, options);
  if (breakpoints !== null && threadId === null) {
    throw new ValueError(
      `Graph "${graph.name}": interruptBefore / interruptAfter pause a thread, and a run without a threadId has none to continue; run with a threadId (and a state store)`,
    );
  }
  return breakpoints;
}
