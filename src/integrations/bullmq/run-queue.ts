/**
 * `BullMQRunQueue`: the servers' side of top-level runs on BullMQ workers.
 *
 * @module
 */
import { type ConnectionOptions, type JobsOptions, Queue } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import type {
  QueuedRunEvent,
  QueuedRunFacts,
  QueuedRunRequest,
  RunQueue,
} from "../../server/run-queue.js";
import { DEFAULT_PREFIX } from "./job-data.js";
import {
  checkRedis,
  DEFAULT_RUN_STREAM_LIMITS,
  RunFeed,
  type RunKeys,
  type RunStreamLimits,
  requestCancel,
  runKeys,
} from "./run-channel.js";
import { DEFAULT_RUN_QUEUE, type RunJobData } from "./run-job.js";

/** Options of {@link BullMQRunQueue}. */
export interface BullMQRunQueueOptions {
  /** How to reach Redis (ioredis options such as `{ host: "127.0.0.1", port: 6379 }`). */
  connection: RedisOptions;
  /** BullMQ queue name; default `"nodestep-runs"`. The workers must use the same. */
  queueName?: string;
  /** BullMQ key prefix (also of the runs' event streams); default `"bull"`. The workers must use the same. */
  prefix?: string;
  /** How long a run's facts and events stay in Redis after its last event, in ms (the workers' limit applies to the events they write). */
  limits?: Partial<RunStreamLimits>;
  /** BullMQ options of every job (`priority`…); `jobId`, `attempts` and the removal ages are the queue's own. */
  jobOptions?: Omit<JobsOptions, "jobId" | "attempts" | "removeOnComplete" | "removeOnFail">;
}

/**
 * A {@link RunQueue} on BullMQ and Redis: `createServer({ graph, runQueue })` queues its runs
 * here, and `runRunWorker` processes (`nodestep worker`) run them. One job per run (its id is
 * the run's id); the run's facts are a Redis hash and its events a Redis Stream, which every
 * server sharing the Redis reads (one blocking connection per server for all the runs it
 * follows). Facts, events and jobs expire `limits.ttlMs` after the run's last event.
 *
 * @example
 * ```ts
 * import { BullMQRunQueue } from "nodestep/bullmq";
 * const runQueue = new BullMQRunQueue({ connection: { host: "127.0.0.1", port: 6379 } });
 * const app = createServer({ graph, runQueue });
 * ```
 */
export class BullMQRunQueue implements RunQueue {
  /** The BullMQ queue runs are added to. */
  readonly queue: Queue;
  /** The Redis keys of its runs. */
  readonly keys: RunKeys;
  /** `queue "<queueName>" (prefix "<prefix>")`, for messages. */
  readonly description: string;
  readonly #redis: Redis;
  readonly #feed: RunFeed;
  readonly #limits: RunStreamLimits;
  readonly #jobOptions: BullMQRunQueueOptions["jobOptions"];
  readonly #connection: RedisOptions;

  constructor(options: BullMQRunQueueOptions) {
    if (!options?.connection || typeof options.connection !== "object")
      throw new TypeError("BullMQRunQueue needs { connection }: how to reach Redis");
    const queueName = options.queueName ?? DEFAULT_RUN_QUEUE;
    const prefix = options.prefix ?? DEFAULT_PREFIX;
    this.keys = runKeys(prefix, queueName);
    this.description = `queue "${queueName}" (prefix "${prefix}")`;
    this.#limits = { ...DEFAULT_RUN_STREAM_LIMITS, ...options.limits };
    this.#jobOptions = options.jobOptions ?? {};
    this.queue = new Queue(queueName, {
      connection: options.connection as ConnectionOptions,
      prefix,
    });
    // Its commands reject while Redis is away (an enqueue answers 500); it reconnects itself.
    this.queue.on("error", () => {});
    this.#connection = options.connection;
    this.#redis = new Redis({ ...options.connection, maxRetriesPerRequest: null });
    this.#redis.on("error", () => {});
    this.#feed = new RunFeed(options.connection);
  }

  /** Resolves once Redis answers. @throws Error when it cannot be reached (no retry). */
  async ready(): Promise<void> {
    await checkRedis(this.#connection, "BullMQRunQueue");
  }

  async enqueue(run: QueuedRunRequest): Promise<void> {
    const now = Date.now();
    const ttl = this.#limits.ttlMs;
    const meta = this.keys.meta(run.runId);
    const thread = this.keys.thread(run.threadId);
    await this.#redis
      .multi()
      .hset(meta, {
        runId: run.runId,
        threadId: run.threadId,
        branchId: run.branchId,
        detached: run.detached ? "1" : "0",
        messageId: run.messageId ?? "",
        status: "queued",
        startedAt: new Date(now).toISOString(),
        seq: "0",
      })
      .pexpire(meta, ttl)
      .zadd(thread, now, run.runId)
      .zremrangebyscore(thread, "-inf", now - ttl)
      .pexpire(thread, ttl)
      .exec();
    const data: RunJobData = {
      v: 1,
      kind: "run",
      runId: run.runId,
      graph: run.graph,
      threadId: run.threadId,
      branchId: run.branchId,
      input: run.input,
      modes: run.modes,
    };
    if (run.model !== undefined) data.model = run.model;
    if (run.resume !== undefined) data.resume = run.resume;
    if (run.onBusy !== undefined) data.onBusy = run.onBusy;
    if (run.onBusyTimeoutMs !== undefined) data.onBusyTimeoutMs = run.onBusyTimeoutMs;
    const age = Math.ceil(ttl / 1000);
    await this.queue.add(run.graph, data, {
      ...this.#jobOptions,
      jobId: run.runId,
      attempts: 1,
      removeOnComplete: { age },
      removeOnFail: { age },
    });
  }

  async facts(runId: string): Promise<QueuedRunFacts | null> {
    return (await this.#read([runId]))[0] ?? null;
  }

  async list(threadId: string): Promise<QueuedRunFacts[]> {
    const ids = await this.#redis.zrange(this.keys.thread(threadId), 0, -1);
    return (await this.#read(ids)).filter(
      (f): f is QueuedRunFacts => f !== null && f.threadId === threadId,
    );
  }

  /** The facts of runs `ids` (`null` for those Redis no longer has), in one round trip. */
  async #read(ids: string[]): Promise<(QueuedRunFacts | null)[]> {
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) {
      pipeline.hgetall(this.keys.meta(id));
      pipeline.xrange(this.keys.events(id), "-", "+", "COUNT", 1);
    }
    const replies = (await pipeline.exec()) ?? [];
    return ids.map((_, i) => {
      const hash = replies[2 * i]?.[1] as Record<string, string> | undefined;
      const first = replies[2 * i + 1]?.[1] as [string, string[]][] | undefined;
      return factsOf(hash, first?.[0]?.[0]);
    });
  }

  follow(runId: string, after: number, onEvents: (events: QueuedRunEvent[]) => void): () => void {
    return this.#feed.follow(this.keys.events(runId), after, (entries) => {
      onEvents(entries);
      return entries.some((e) => e.event === "end" || e.event === "error");
    });
  }

  /**
   * How many BullMQ workers take jobs from this queue now (BullMQ's `getWorkersCount`: the
   * Redis connections its workers name after the queue). @throws when Redis cannot be reached.
   */
  async workers(): Promise<number> {
    return this.queue.getWorkersCount();
  }

  async cancel(runId: string): Promise<void> {
    await requestCancel(this.#redis, this.keys, runId, this.#limits.ttlMs);
  }

  /** Stop following runs and close the connections. */
  async close(): Promise<void> {
    await this.#feed.close();
    await this.queue.close();
    await this.#redis.quit().catch(() => {});
  }
}

const STATUSES = new Set(["queued", "running", "done", "interrupted", "error", "cancelled"]);

function factsOf(
  h: Record<string, string> | null | undefined,
  firstId: string | undefined,
): QueuedRunFacts | null {
  if (!h?.runId || !h.threadId || !h.branchId || !h.startedAt) return null;
  const status = STATUSES.has(h.status ?? "") ? (h.status as QueuedRunFacts["status"]) : "queued";
  return {
    runId: h.runId,
    threadId: h.threadId,
    branchId: h.branchId,
    detached: h.detached === "1",
    messageId: h.messageId ? h.messageId : null,
    status,
    startedAt: h.startedAt,
    endedAt: h.endedAt ? h.endedAt : null,
    lastEventId: Number(h.seq ?? 0),
    firstBufferedId:
      firstId === undefined
        ? Number(h.seq ?? 0) + 1
        : Number(firstId.slice(firstId.indexOf("-") + 1)),
  };
}
