/**
 * `BullMQExecutor`: the parent's side of sub-agents on BullMQ.
 *
 * @module
 */
import { type ConnectionOptions, type JobsOptions, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { AgentHandleLostError, ValueError } from "../../errors/index.js";
import type {
  AgentExecutor,
  AgentJob,
  AgentResult,
  DurableAgentHandle,
} from "../../graph/sub-agents.js";
import { findNonJson, type JsonValue } from "../../json/index.js";
import {
  agentResultSchema,
  DEFAULT_PREFIX,
  DEFAULT_QUEUE,
  type GraphRegistry,
  type JobData,
  jobDataSchema,
  registryNameOf,
} from "./job-data.js";
import { type RunKeys, redisFrom, requestCancel, runKeys } from "./run-channel.js";

/** Options of {@link BullMQExecutor}. */
export interface BullMQExecutorOptions {
  /** How to reach Redis: ioredis options such as `{ host: "127.0.0.1", port: 6379 }`, or a client. */
  connection: ConnectionOptions;
  /** BullMQ queue name; default `"nodestep-agents"`. The workers must use the same. */
  queueName?: string;
  /** BullMQ key prefix in Redis; default `"bull"`. The workers must use the same. */
  prefix?: string;
  /** Graphs by name; a task's graph must be one of them (by identity, or by its `name`). */
  registry: GraphRegistry;
  /** Name recorded in handles; default `"bullmq:<queueName>"`. */
  name?: string;
  /**
   * BullMQ options of every job (`removeOnComplete`, `removeOnFail`, `priority`…). Jobs are
   * kept by default: a job removed from Redis can no longer be polled
   * (`AgentHandleLostError`). `jobId` and `attempts` are the executor's own.
   */
  jobOptions?: Omit<JobsOptions, "jobId" | "attempts">;
}

/**
 * Runs sub-agents on BullMQ workers ({@link runWorker}) in other processes or machines that
 * share the Redis and the state store (PostgreSQL).
 *
 * `submit` adds one BullMQ job per sub-agent: its id is the handle's id and its data is plain
 * JSON (the graph's registry name, the input, the thread and the context). A handle is plain
 * data: a parent that restarts polls it with a new executor on the same queue. The graph must
 * be in `registry`, and the task's `input` and `context` must be JSON (a context of class
 * instances, functions or clients cannot cross processes; give the workers what they need
 * another way). A sub-agent that runs without a thread in the parent (no state store) gets
 * the thread `"bg:<handle id>"` on the workers' store.
 *
 * @example
 * ```ts
 * import { BullMQExecutor } from "nodestep/bullmq";
 * const executor = new BullMQExecutor({
 *   connection: { host: "127.0.0.1", port: 6379 },
 *   registry: { researcher },
 * });
 * // in a node:
 * const handles = await ctx.submit([{ graph: researcher, input }], { executor });
 * const results = await ctx.pollAgents(handles, { executor }); // null while running
 * ```
 */
export class BullMQExecutor implements AgentExecutor {
  /** Name recorded in handles. */
  readonly name: string;
  /** The BullMQ queue jobs are added to. */
  readonly queue: Queue;
  readonly #registry: GraphRegistry;
  readonly #jobOptions: Omit<JobsOptions, "jobId" | "attempts">;
  readonly #keys: RunKeys;
  readonly #connection: ConnectionOptions;
  #redis: Redis | null = null;

  constructor(options: BullMQExecutorOptions) {
    if (!options?.registry || typeof options.registry !== "object")
      throw new TypeError("BullMQExecutor needs { registry }: graphs by name");
    const queueName = options.queueName ?? DEFAULT_QUEUE;
    this.name = options.name ?? `bullmq:${queueName}`;
    this.#registry = options.registry;
    this.#jobOptions = options.jobOptions ?? {};
    this.queue = new Queue(queueName, {
      connection: options.connection,
      prefix: options.prefix ?? DEFAULT_PREFIX,
    });
    this.#connection = options.connection;
    this.#keys = runKeys(options.prefix ?? DEFAULT_PREFIX, queueName);
  }

  /**
   * Ask the workers to cancel these sub-agents: the one running a job aborts it (its run ends
   * at once, its finished supersteps kept), and a job not started yet is cancelled when a
   * worker takes it. `poll` then answers `{ status: "cancelled" }` for them. Cancelling a
   * finished job changes nothing. The request is kept in Redis for 24 hours.
   * @throws AgentHandleLostError for a handle of another executor.
   */
  async cancel(handles: readonly DurableAgentHandle[]): Promise<void> {
    for (const h of handles) {
      if (h?.executor !== this.name) {
        throw new AgentHandleLostError(
          `Sub-agent "${String(h?.id)}" was submitted to executor "${h?.executor}", not "${this.name}"`,
          { handleId: String(h?.id) },
        );
      }
    }
    this.#redis ??= redisFrom(this.#connection);
    const client = this.#redis;
    for (const h of handles) await requestCancel(client, this.#keys, String(h.id), 86_400_000);
  }

  /**
   * Add one job per sub-agent; returns their handles in order. Everything is checked before
   * any job is added.
   * @throws GraphConfigError for a graph not in the registry; ValueError for an input or a context that is not JSON.
   */
  async submit(jobs: AgentJob[]): Promise<DurableAgentHandle[]> {
    const prepared = jobs.map((job) => {
      const graph = registryNameOf(this.#registry, job.graph);
      const badInput = findNonJson(job.input, "input");
      if (badInput)
        throw new ValueError(
          `Sub-agent ${job.id} (graph "${job.graph.name}"): ${badInput.path} is not JSON (${badInput.problem}); a BullMQ job's input must be JSON`,
        );
      const data: JobData = {
        v: 1,
        graph,
        input: job.input as Record<string, JsonValue>,
        threadId: job.threadId ?? `bg:${job.id}`,
        rootRunId: job.rootRunId,
      };
      if (job.hasContext && job.context !== undefined) {
        const bad = findNonJson(job.context, "context");
        if (bad)
          throw new ValueError(
            `Sub-agent ${job.id} (graph "${job.graph.name}"): ${bad.path} is not JSON (${bad.problem}); the context of a sub-agent on BullMQ must be JSON, since it crosses processes (pass { context: ... } in the task, or give the workers what they need another way)`,
          );
        data.context = job.context as JsonValue;
      }
      return { id: job.id, data };
    });
    await this.queue.addBulk(
      prepared.map((p) => ({
        name: p.data.graph,
        data: p.data,
        opts: { ...this.#jobOptions, jobId: p.id, attempts: 1 },
      })),
    );
    return prepared.map((p) => ({ id: p.id, threadId: p.data.threadId, executor: this.name }));
  }

  /**
   * Read each job's state: its `AgentResult` when completed, a failed result when it failed,
   * `null` while it waits, runs or is delayed.
   * @throws AgentHandleLostError for a handle of another executor, or a job not in Redis.
   */
  async poll(handles: readonly DurableAgentHandle[]): Promise<(AgentResult | null)[]> {
    return Promise.all(handles.map((h) => this.#pollOne(h)));
  }

  async #pollOne(h: DurableAgentHandle): Promise<AgentResult | null> {
    const id = String(h?.id);
    if (h?.executor !== this.name) {
      throw new AgentHandleLostError(
        `Sub-agent "${id}" was submitted to executor "${h?.executor}", not "${this.name}"`,
        { handleId: id },
      );
    }
    // The state first: once it says completed or failed, the job read after it is final.
    const state = await this.queue.getJobState(id);
    const job = state === "unknown" ? undefined : await this.queue.getJob(id);
    if (!job) {
      throw new AgentHandleLostError(
        `Executor "${this.name}" does not know sub-agent "${id}": no such job in queue "${this.queue.name}" (removed, or submitted to another Redis, prefix or queue)`,
        { handleId: id },
      );
    }
    if (state === "completed") {
      const parsed = agentResultSchema.safeParse(job.returnvalue);
      if (parsed.success) return parsed.data;
      return {
        id,
        threadId: h.threadId,
        status: "failed",
        state: null,
        error: {
          name: "AgentHandleLostError",
          message: `Job "${id}" completed without a sub-agent result; was it run by a nodestep worker?`,
        },
      };
    }
    if (state === "failed") {
      const data = jobDataSchema.safeParse(job.data);
      const failure = data.success ? data.data.failure : undefined;
      return {
        id,
        threadId: h.threadId,
        status: "failed",
        state: null,
        error: failure ?? { name: "Error", message: job.failedReason },
      };
    }
    return null;
  }

  /** Close the queue's connection to Redis. */
  async close(): Promise<void> {
    await this.#redis?.quit().catch(() => {});
    await this.queue.close();
  }
}
