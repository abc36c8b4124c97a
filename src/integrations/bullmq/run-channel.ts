/**
 * A queued run's events in Redis: one Redis Stream per run (ids `0-1`, `0-2`, …, so that the
 * number after the dash is the SSE event id), a hash of the run's facts, and a sorted set of a
 * thread's runs. Workers append through {@link appendRunEvent} (fenced by the run's owner);
 * servers read through a {@link RunFeed}, one blocking connection for every run they follow.
 *
 * @module
 */
import { Redis, type RedisOptions } from "ioredis";

/** The Redis keys of one queue (`<prefix>:<queue>:…`). */
export interface RunKeys {
  /** Hash of a run's facts: `runId`, `threadId`, `branchId`, `detached`, `messageId`, `status`, `startedAt`, `endedAt`, `owner`, `seq`. */
  meta(runId: string): string;
  /** The run's Redis Stream of events; entries `{ e: event name, d: JSON data }`. */
  events(runId: string): string;
  /** Sorted set of a thread's run ids, scored by their start time in ms. */
  thread(threadId: string): string;
  /** Set when a run (or sub-agent job) was asked to stop. */
  cancel(jobId: string): string;
  /** Pub/sub channel of cancel requests (the message is the job id). */
  cancelChannel: string;
}

/** The keys of queue `queueName` under BullMQ key prefix `prefix`. */
export function runKeys(prefix: string, queueName: string): RunKeys {
  const base = `${prefix}:${queueName}`;
  return {
    meta: (runId) => `${base}:run:${runId}`,
    events: (runId) => `${base}:events:${runId}`,
    thread: (threadId) => `${base}:thread-runs:${threadId}`,
    cancel: (jobId) => `${base}:cancel:${jobId}`,
    cancelChannel: `${base}:cancel`,
  };
}

/** Bounds of a run's events in Redis. */
export interface RunStreamLimits {
  /** Events kept per run (the oldest go first: a join from before them answers 410); default 10,000. */
  maxEvents: number;
  /** How long a run's events and facts stay after its last event, in ms; default 3,600,000 (1 hour). */
  ttlMs: number;
}

/** The defaults of {@link RunStreamLimits}. */
export const DEFAULT_RUN_STREAM_LIMITS: RunStreamLimits = { maxEvents: 10_000, ttlMs: 3_600_000 };

// KEYS: meta, events. ARGV: owner, event, data, maxEvents, ttlMs, final status or "", now (ISO).
// Appends only while `owner` owns the run: a worker whose run was taken over writes nothing more.
const APPEND = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return -1 end
local n = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], '0-' .. n, 'e', ARGV[2], 'd', ARGV[3])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[6], 'endedAt', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return n
`;

// KEYS: meta. ARGV: owner, ttlMs. Makes `owner` the run's writer unless the run has ended;
// returns { previous owner ("" for none), how many times the run was taken }, or
// { "ended:<status>", 0 }.
const TAKE = `
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'queued' and status ~= 'running' then return {'ended:' .. status, 0} end
local previous = redis.call('HGET', KEYS[1], 'owner') or ''
local takes = redis.call('HINCRBY', KEYS[1], 'takes', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'status', 'running')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {previous, takes}
`;

/** The statuses a run's facts say it ended with. */
export type FinalStatus = "done" | "interrupted" | "error" | "cancelled";

/**
 * Append one event to a run's stream as `owner`; `final` marks the run ended. Resolves with
 * the event's id, or `-1` when `owner` no longer owns the run (nothing was written).
 */
export async function appendRunEvent(
  redis: Redis,
  keys: RunKeys,
  runId: string,
  owner: string,
  event: string,
  data: unknown,
  limits: RunStreamLimits,
  final: FinalStatus | null = null,
): Promise<number> {
  const n = await redis.eval(
    APPEND,
    2,
    keys.meta(runId),
    keys.events(runId),
    owner,
    event,
    JSON.stringify(data),
    String(limits.maxEvents),
    String(limits.ttlMs),
    final ?? "",
    new Date().toISOString(),
  );
  return Number(n);
}

/**
 * Make `owner` the run's writer. Resolves with the previous owner (`""` when no worker took
 * the run before) and how many times it has been taken (this time included), or `{ ended }`
 * when the run has already ended.
 */
export async function takeRun(
  redis: Redis,
  keys: RunKeys,
  runId: string,
  owner: string,
  ttlMs: number,
): Promise<{ previous: string; takes: number } | { ended: string }> {
  const [r, takes] = (await redis.eval(TAKE, 1, keys.meta(runId), owner, String(ttlMs))) as [
    string,
    number,
  ];
  return r.startsWith("ended:")
    ? { ended: r.slice("ended:".length) }
    : { previous: r, takes: Number(takes) };
}

/** Ask for job `jobId` (a run or a sub-agent) to stop: a key the worker checks, and a message to every worker. */
export async function requestCancel(
  redis: Redis,
  keys: RunKeys,
  jobId: string,
  ttlMs: number,
): Promise<void> {
  await redis.set(keys.cancel(jobId), "1", "PX", ttlMs);
  await redis.publish(keys.cancelChannel, jobId);
}

/** `true` when job `jobId` was asked to stop. */
export async function cancelRequested(
  redis: Redis,
  keys: RunKeys,
  jobId: string,
): Promise<boolean> {
  return (await redis.exists(keys.cancel(jobId))) === 1;
}

/** One event read from a run's stream. */
export interface FeedEntry {
  id: number;
  event: string;
  data: unknown;
}

interface Follower {
  key: string;
  cursor: number;
  onEntries: (entries: FeedEntry[]) => boolean;
}

type XReadReply = [string, [string, string[]][]][] | null;

/**
 * Reads the streams of every run a server follows on one blocking connection (`XREAD BLOCK`
 * on all their keys at once; a follower added while it blocks wakes it with `CLIENT UNBLOCK`).
 */
export class RunFeed {
  readonly #blocking: Redis;
  readonly #control: Redis;
  readonly #followers = new Set<Follower>();
  #blockingId: number | null = null;
  #wake: (() => void) | null = null;
  #closed = false;
  #loop: Promise<void> | null = null;

  constructor(connection: RedisOptions) {
    this.#blocking = new Redis({ ...connection, maxRetriesPerRequest: null, lazyConnect: true });
    this.#control = new Redis({ ...connection, lazyConnect: true });
    // They reconnect by themselves; a command that fails reports it.
    this.#blocking.on("error", () => {});
    this.#control.on("error", () => {});
  }

  /**
   * Call `onEntries` with the events of `key` after id `after`, in order, batch by batch, until
   * it returns `true` (it saw the run's last event) or the returned function is called.
   */
  follow(key: string, after: number, onEntries: (entries: FeedEntry[]) => boolean): () => void {
    const f: Follower = { key, cursor: after, onEntries };
    this.#followers.add(f);
    this.#start();
    this.#interrupt();
    return () => {
      this.#followers.delete(f);
    };
  }

  #start(): void {
    if (this.#loop || this.#closed) return;
    this.#loop = this.#run().catch((e: unknown) => {
      if (!this.#closed) process.stderr.write(`nodestep run feed: ${(e as Error).message}\n`);
    });
  }

  #interrupt(): void {
    if (this.#wake) {
      const w = this.#wake;
      this.#wake = null;
      w();
      return;
    }
    if (this.#blockingId !== null)
      void this.#control.client("UNBLOCK", this.#blockingId).catch(() => {});
  }

  async #run(): Promise<void> {
    await this.#blocking.connect();
    this.#blockingId = Number(await this.#blocking.client("ID"));
    while (!this.#closed) {
      const followers = [...this.#followers];
      if (followers.length === 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        continue;
      }
      // One cursor per key: the smallest of its followers'.
      const cursors = new Map<string, number>();
      for (const f of followers) {
        const c = cursors.get(f.key);
        if (c === undefined || f.cursor < c) cursors.set(f.key, f.cursor);
      }
      const keys = [...cursors.keys()];
      const reply = (await this.#blocking.xread(
        "COUNT",
        1000,
        "BLOCK",
        10_000,
        "STREAMS",
        ...keys,
        ...keys.map((k) => `0-${cursors.get(k)}`),
      )) as XReadReply;
      if (!reply) continue;
      for (const [key, items] of reply) {
        const entries = items.map(([id, fields]) => entryOf(id, fields));
        for (const f of followers) {
          if (f.key !== key || !this.#followers.has(f)) continue;
          const mine = entries.filter((e) => e.id > f.cursor);
          if (mine.length === 0) continue;
          f.cursor = mine[mine.length - 1]!.id;
          let done = false;
          try {
            done = f.onEntries(mine);
          } catch (e) {
            process.stderr.write(`nodestep run feed: ${(e as Error).message}\n`);
            done = true;
          }
          if (done) this.#followers.delete(f);
        }
      }
    }
  }

  /** Stop reading and close both connections. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#followers.clear();
    this.#interrupt();
    this.#blocking.disconnect();
    await this.#loop;
    await this.#control.quit().catch(() => {});
  }
}

function entryOf(id: string, fields: string[]): FeedEntry {
  let event = "message";
  let data: unknown = null;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "e") event = fields[i + 1]!;
    else if (fields[i] === "d") data = JSON.parse(fields[i + 1]!);
  }
  return { id: Number(id.slice(id.indexOf("-") + 1)), event, data };
}

/**
 * A new ioredis connection from BullMQ connection options: a client's `duplicate()`, or a new
 * client on the options.
 */
export function redisFrom(connection: unknown): Redis {
  const c = connection as { duplicate?: () => unknown } | null;
  if (c && typeof c.duplicate === "function") return c.duplicate() as Redis;
  return new Redis({ ...(connection as RedisOptions), maxRetriesPerRequest: null });
}

/**
 * Connect to Redis once, without retrying, to fail fast with a clear error at start instead
 * of retrying for ever. @throws Error `"<what>: cannot reach Redis at host:port (…)"`.
 */
export async function checkRedis(connection: RedisOptions, what: string): Promise<void> {
  const probe = new Redis({
    ...connection,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
  });
  let cause: Error | null = null;
  probe.on("error", (e: Error) => {
    cause ??= e;
  });
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    throw new Error(
      `${what}: cannot reach Redis at ${connection.host ?? "127.0.0.1"}:${connection.port ?? 6379} (${(cause ?? (e as Error)).message})`,
    );
  } finally {
    probe.disconnect();
  }
}
