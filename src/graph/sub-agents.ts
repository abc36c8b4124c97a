/**
 * Sub-agents: graphs started from a node with `ctx.spawn` (they belong to the run) or
 * `ctx.submit` (on a background executor, polled later with `ctx.pollAgents`).
 *
 * @module
 */
import {
  type AgentFailure,
  AgentGroupError,
  AgentHandleLostError,
  AgentTimeoutError,
  GraphExecutionError,
  RunCancelledError,
  ValueError,
} from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import { memo, nodeCrypto } from "../lazy.js";
import type { MemoryStore } from "../memory/types.js";
import type { StateStore } from "../stores/types.js";
import type { RunOptions, RunResult } from "./types.js";

/** The part of a `Graph` that sub-agents need. */
export interface AgentGraph {
  readonly name: string;
  readonly stateStore: StateStore | null;
  /** The graph's own long-term memory; without one a sub-agent gets its parent run's. */
  readonly memoryStore?: MemoryStore | null;
  invoke(input: never, options?: RunOptions): Promise<RunResult<unknown>>;
}

/** One sub-agent to start: a graph, its input, and options. */
export interface AgentTask<C = unknown> {
  graph: AgentGraph;
  /** The input of the sub-agent's run (an update of its state). Required. */
  input: Record<string, unknown>;
  /** The sub-agent's `context`; the parent run's when omitted. */
  context?: C;
  /** The sub-agent's thread; `"<prefix>:sub:<id>"` (spawn) or `"<prefix>:bg:<id>"` (submit) when omitted. */
  threadId?: string;
}

/** A sub-agent started with `spawn`. */
export interface AgentHandle {
  id: string;
  /** Its thread, or `null` when it runs without a state store. */
  threadId: string | null;
}

/** A sub-agent started with `submit`, on an executor. Plain data: keep it in state to poll later. */
export interface DurableAgentHandle extends AgentHandle {
  /** Name of the executor it was submitted to. */
  executor: string;
}

/** How a sub-agent ended. */
export interface AgentResult {
  id: string;
  threadId: string | null;
  status: "completed" | "failed" | "cancelled";
  /** Its final state (JSON), or `null` when it failed or was cancelled. */
  state: JsonValue | null;
  /** What went wrong, or `null`. */
  error: AgentFailure | null;
}

/** A job an executor runs: a task with its id, thread and store settled. */
export interface AgentJob {
  id: string;
  graph: AgentGraph;
  input: Record<string, unknown>;
  context: unknown;
  hasContext: boolean;
  threadId: string | null;
  stateStore: StateStore | null;
  /**
   * The parent run's memory store for a graph without its own (`null` or left out: the graph's).
   * An object, so only in-process executors pass it; a BullMQ worker's graphs use their own.
   */
  memoryStore?: MemoryStore | null;
  rootRunId: string;
}

/** Runs sub-agents in the background; `InProcessExecutor` here, BullMQ in `nodestep/bullmq`. */
export interface AgentExecutor {
  /** Name recorded in durable handles. */
  readonly name: string;
  /** Start the jobs; returns one handle per job, in order. */
  submit(jobs: AgentJob[]): Promise<DurableAgentHandle[]>;
  /**
   * Results of finished jobs, `null` for running ones.
   * @throws AgentHandleLostError for a handle the executor does not know.
   */
  poll(handles: readonly DurableAgentHandle[]): Promise<(AgentResult | null)[]>;
}

let counter = 0;
/** The process prefix of sub-agent ids, drawn on the first one. */
const prefix = memo(() => nodeCrypto().randomBytes(3).toString("hex"));
/** A new sub-agent id. */
export function newAgentId(): string {
  return `sa-${prefix()}${(++counter).toString(36)}`;
}

function failureOf(e: unknown): AgentFailure {
  const err = e as { name?: unknown; message?: unknown };
  return { name: String(err?.name ?? "Error"), message: String(err?.message ?? e) };
}

/** Run one job to its result; never throws. */
export async function runAgentJob(
  job: AgentJob,
  signal: AbortSignal,
): Promise<{ result: AgentResult; error: unknown }> {
  try {
    const options: RunOptions = { signal, rootRunId: job.rootRunId, stateStore: job.stateStore };
    if (job.threadId !== null) options.threadId = job.threadId;
    if (job.hasContext) options.context = job.context;
    if (job.memoryStore) options.memoryStore = job.memoryStore;
    const r = await job.graph.invoke(job.input as never, options);
    if (r.status === "interrupted") {
      const error = new GraphExecutionError(
        `Sub-agent ${job.id} (graph "${job.graph.name}") paused for an interrupt (${r.interrupts.map((i) => i.key).join(", ")}); a sub-agent cannot ask a person`,
        { graph: job.graph.name },
      );
      return {
        result: {
          id: job.id,
          threadId: job.threadId,
          status: "failed",
          state: null,
          error: failureOf(error),
        },
        error,
      };
    }
    return {
      result: {
        id: job.id,
        threadId: job.threadId,
        status: "completed",
        state: r.state as JsonValue,
        error: null,
      },
      error: null,
    };
  } catch (e) {
    const status = e instanceof RunCancelledError || signal.aborted ? "cancelled" : "failed";
    return {
      result: { id: job.id, threadId: job.threadId, status, state: null, error: failureOf(e) },
      error: e,
    };
  }
}

/** What a run's sub-agents need from the parent run. */
export interface ParentRun {
  graphName: string;
  runId: string;
  rootRunId: string;
  threadId: string | null;
  store: StateStore | null;
  /** The run's memory store (`ctx.memoryStore`), inherited by sub-agents without their own. */
  memoryStore?: MemoryStore | null;
  context: { value: unknown; given: boolean };
  signal: AbortSignal;
}

function checkTasks(tasks: readonly AgentTask[], what: string): void {
  if (!Array.isArray(tasks)) throw new TypeError(`${what} takes a list of tasks`);
  tasks.forEach((t, i) => {
    if (!t || typeof t !== "object" || !t.graph || typeof t.graph.invoke !== "function") {
      throw new TypeError(`${what}: task ${i} has no graph`);
    }
    if (t.input === undefined || t.input === null)
      throw new TypeError(`${what}: task ${i} (graph "${t.graph.name}") has no input`);
  });
}

function jobsFor(
  parent: ParentRun,
  tasks: readonly AgentTask[],
  kind: "sub" | "bg",
  threadPrefix: string | undefined,
): AgentJob[] {
  if (threadPrefix !== undefined && (typeof threadPrefix !== "string" || threadPrefix === "")) {
    throw new ValueError("threadPrefix must be a non-empty string");
  }
  return tasks.map((t) => {
    const id = newAgentId();
    const store = t.graph.stateStore ?? parent.store;
    const base = threadPrefix ?? parent.threadId ?? parent.runId;
    const threadId = t.threadId ?? (store ? `${base}:${kind}:${id}` : null);
    const hasContext = Object.hasOwn(t, "context") ? t.context !== undefined : parent.context.given;
    return {
      id,
      graph: t.graph,
      input: t.input,
      context: Object.hasOwn(t, "context") ? t.context : parent.context.value,
      hasContext,
      threadId,
      stateStore: t.graph.stateStore ? null : store,
      memoryStore: t.graph.memoryStore ? null : (parent.memoryStore ?? null),
      rootRunId: parent.rootRunId,
    };
  });
}

interface Spawned {
  handle: AgentHandle;
  controller: AbortController;
  done: Promise<{ result: AgentResult; error: unknown }>;
  gathered: boolean;
}

/** The sub-agents of one run. */
export class SubAgents {
  readonly #spawned = new Map<string, Spawned>();
  constructor(private readonly parent: ParentRun) {}

  /** Start sub-agents concurrently. @throws TypeError for a task without input; ValueError for an empty threadPrefix. */
  async spawn(
    tasks: readonly AgentTask[],
    options: { threadPrefix?: string } = {},
  ): Promise<AgentHandle[]> {
    checkTasks(tasks, "spawn");
    const jobs = jobsFor(this.parent, tasks, "sub", options.threadPrefix);
    return jobs.map((job) => {
      const controller = new AbortController();
      const signal = AbortSignal.any([this.parent.signal, controller.signal]);
      const handle: AgentHandle = { id: job.id, threadId: job.threadId };
      this.#spawned.set(job.id, {
        handle,
        controller,
        done: runAgentJob(job, signal),
        gathered: false,
      });
      return handle;
    });
  }

  /**
   * Wait for sub-agents started with `spawn`.
   * @throws AgentHandleLostError, AgentTimeoutError, AgentGroupError.
   */
  async gather(
    handles: readonly (AgentHandle | string)[],
    options: { timeoutMs?: number; returnExceptions?: boolean } = {},
  ): Promise<AgentResult[]> {
    if (
      options.timeoutMs !== undefined &&
      !(
        typeof options.timeoutMs === "number" &&
        options.timeoutMs >= 0 &&
        Number.isFinite(options.timeoutMs)
      )
    ) {
      throw new ValueError(
        `gather: timeoutMs must be a non-negative number of milliseconds, got ${String(options.timeoutMs)}`,
      );
    }
    const entries = handles.map((h) => {
      const id = typeof h === "string" ? h : h?.id;
      const s = this.#spawned.get(id);
      if (!s) {
        throw new AgentHandleLostError(
          `Sub-agent "${id}" was not spawned in this run of graph "${this.parent.graphName}"; ids do not resolve after a pause (use submit and pollAgents to wait across runs)`,
          { handleId: String(id) },
        );
      }
      if (s.gathered) {
        throw new AgentHandleLostError(`Sub-agent "${id}" was already gathered`, { handleId: id });
      }
      return s;
    });
    for (const s of entries) s.gathered = true;
    const all = Promise.all(entries.map((s) => s.done));
    let outcomes: { result: AgentResult; error: unknown }[];
    if (options.timeoutMs !== undefined) {
      const timeoutMs = options.timeoutMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutMs);
      });
      const finished = new Set<string>();
      for (const s of entries) void s.done.then(() => finished.add(s.handle.id));
      const r = await Promise.race([all, expired]);
      clearTimeout(timer);
      if (r === "timeout") {
        const pending = entries.filter((s) => !finished.has(s.handle.id)).map((s) => s.handle.id);
        for (const s of entries)
          if (!finished.has(s.handle.id))
            s.controller.abort(
              new RunCancelledError(`Sub-agent ${s.handle.id} was cancelled by gather's timeout`),
            );
        throw new AgentTimeoutError(
          `gather timed out after ${timeoutMs} ms with ${pending.length} sub-agent(s) unfinished: ${pending.join(", ")}; they were cancelled`,
          {
            pending,
            timeoutMs,
          },
        );
      }
      outcomes = r;
    } else {
      outcomes = await all;
    }
    const results = outcomes.map((o) => o.result);
    const bad = outcomes.filter((o) => o.result.status !== "completed");
    if (bad.length > 0 && !options.returnExceptions) {
      throw new AgentGroupError(
        `${bad.length} of ${results.length} sub-agent(s) did not complete: ${bad.map((o) => `${o.result.id} ${o.result.status} (${o.result.error?.name}: ${o.result.error?.message})`).join("; ")}`,
        { results, errors: bad.map((o) => o.error), cause: bad[0]!.error },
      );
    }
    return results;
  }

  /** Ids of sub-agents never gathered. */
  ungathered(): string[] {
    return [...this.#spawned.values()].filter((s) => !s.gathered).map((s) => s.handle.id);
  }

  /** Cancel every sub-agent not yet finished and wait for them to stop. */
  async cancelAll(reason: string): Promise<void> {
    const all = [...this.#spawned.values()];
    for (const s of all) s.controller.abort(new RunCancelledError(reason));
    await Promise.all(all.map((s) => s.done));
  }

  /** Start sub-agents on an executor. @throws TypeError for a task without input, before any starts. */
  async submit(
    tasks: readonly AgentTask[],
    options: { executor: AgentExecutor; threadPrefix?: string },
  ): Promise<DurableAgentHandle[]> {
    checkTasks(tasks, "submit");
    if (!options?.executor || typeof options.executor.submit !== "function")
      throw new TypeError("submit needs { executor }");
    return options.executor.submit(jobsFor(this.parent, tasks, "bg", options.threadPrefix));
  }

  /** Check background sub-agents without waiting: a result, or `null` while running. */
  async pollAgents(
    handles: readonly DurableAgentHandle[],
    options: { executor: AgentExecutor },
  ): Promise<(AgentResult | null)[]> {
    if (!options?.executor || typeof options.executor.poll !== "function")
      throw new TypeError("pollAgents needs { executor }");
    return options.executor.poll(handles);
  }
}

/**
 * Runs sub-agents in this process, in the background (the reference's `AsyncioExecutor`).
 * Results are kept in memory until polled; they do not survive a restart of the process
 * (their threads do, in the store). Use `nodestep/bullmq` to run them on other machines.
 */
export class InProcessExecutor implements AgentExecutor {
  readonly name: string;
  readonly #jobs = new Map<string, { result: AgentResult | null; controller: AbortController }>();

  constructor(options: { name?: string } = {}) {
    this.name = options.name ?? "in-process";
  }

  async submit(jobs: AgentJob[]): Promise<DurableAgentHandle[]> {
    return jobs.map((job) => {
      const entry: { result: AgentResult | null; controller: AbortController } = {
        result: null,
        controller: new AbortController(),
      };
      this.#jobs.set(job.id, entry);
      void runAgentJob(job, entry.controller.signal).then((o) => {
        entry.result = o.result;
      });
      return { id: job.id, threadId: job.threadId, executor: this.name };
    });
  }

  async poll(handles: readonly DurableAgentHandle[]): Promise<(AgentResult | null)[]> {
    return handles.map((h) => {
      const entry = this.#jobs.get(h?.id);
      if (!entry) {
        throw new AgentHandleLostError(
          `Executor "${this.name}" does not know sub-agent "${h?.id}" (was it submitted to another executor, or before a restart?)`,
          {
            handleId: String(h?.id),
          },
        );
      }
      return entry.result;
    });
  }

  /** Cancel every running job. */
  cancelAll(): void {
    for (const e of this.#jobs.values())
      if (!e.result) e.controller.abort(new RunCancelledError("The executor was shut down"));
  }
}
