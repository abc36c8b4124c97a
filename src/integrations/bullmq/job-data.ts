/**
 * What a BullMQ job of `nodestep/bullmq` carries: plain JSON, so that it crosses processes.
 *
 * @module
 */
import { z } from "zod";
import { GraphConfigError } from "../../errors/index.js";
import type { AgentGraph } from "../../graph/sub-agents.js";

/** Graphs by the name jobs carry: the same on the parent and on every worker. */
export type GraphRegistry = Readonly<Record<string, AgentGraph>>;

/** Default BullMQ queue name. */
export const DEFAULT_QUEUE = "nodestep-agents";
/** Default BullMQ key prefix. */
export const DEFAULT_PREFIX = "bull";

const failureSchema = z.object({ name: z.string(), message: z.string() });

/** The data of one job (version 1). */
export const jobDataSchema = z.object({
  v: z.literal(1),
  /** Registry name of the graph. */
  graph: z.string(),
  /** Input of the sub-agent's run. */
  input: z.record(z.string(), z.json()),
  /** Its thread on the workers' state store. */
  threadId: z.string(),
  /** The sub-agent's `context`, present only when one was given. */
  context: z.json().optional(),
  rootRunId: z.string(),
  /** Set by the first worker that takes the job: the thread's `lastSeq` before it started. */
  startSeq: z.number().int().nonnegative().optional(),
  /** How many times a worker found the thread busy and put the job back. */
  busyRetries: z.number().int().nonnegative().optional(),
  /** Set by the worker when the sub-agent failed, before it fails the job. */
  failure: failureSchema.optional(),
});

/** The data of one job. */
export type JobData = z.infer<typeof jobDataSchema>;

/** What a completed job returns: an `AgentResult`. */
export const agentResultSchema = z.object({
  id: z.string(),
  threadId: z.string().nullable(),
  status: z.enum(["completed", "failed", "cancelled"]),
  state: z.json().nullable(),
  error: failureSchema.nullable(),
});

/** The registry name of `graph`: the key it is registered under, else its `name` when registered. */
export function registryNameOf(registry: GraphRegistry, graph: AgentGraph): string {
  for (const [name, g] of Object.entries(registry)) if (g === graph) return name;
  if (Object.hasOwn(registry, graph.name)) return graph.name;
  throw new GraphConfigError(
    `Graph "${graph.name}" is not in the BullMQ executor's registry (${Object.keys(registry).join(", ") || "empty"}); graphs are code, so the parent and every worker name them in the same registry`,
    { graph: graph.name },
  );
}

/** The graph registered under `name`. @throws GraphConfigError when none is. */
export function registeredGraph(registry: GraphRegistry, name: string): AgentGraph {
  const g = Object.hasOwn(registry, name) ? registry[name] : undefined;
  if (!g) {
    throw new GraphConfigError(
      `No graph "${name}" in this worker's registry (${Object.keys(registry).join(", ") || "empty"}); register it under the same name as on the parent`,
      { graph: name },
    );
  }
  return g;
}
