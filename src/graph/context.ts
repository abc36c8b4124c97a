/**
 * The context a running node receives.
 *
 * @module
 */
import { ContextNotProvidedError } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { MemoryStore } from "../memory/types.js";
import { describeValue } from "../state/define-state.js";
import type { StateDefinition } from "../state/index.js";
import type { StateStore } from "../stores/types.js";
import type {
  AgentExecutor,
  AgentHandle,
  AgentResult,
  AgentTask,
  DurableAgentHandle,
  SubAgents,
} from "./sub-agents.js";
import type { TraceScope } from "./tracing.js";
import type { StreamEvent } from "./types.js";

/**
 * Stream modes: `"values"` (the state after each superstep), `"updates"` (each task's update),
 * `"custom"` (`ctx.emit`), `"tokens"` (model stream chunks), `"messages"` (each complete message
 * a node writes, as it writes it), `"tasks"` (each task's start and result), `"checkpoints"`
 * (the thread's position at each superstep's commit), `"debug"` (tasks and checkpoints with
 * their type, step and time). See docs/streaming.md.
 */
export type StreamMode =
  | "values"
  | "updates"
  | "custom"
  | "tokens"
  | "messages"
  | "tasks"
  | "checkpoints"
  | "debug";

/** Modes a node may emit into with `ctx.emit`: `"custom"` (default), `"tokens"`, `"messages"`. */
export type EmitMode = "custom" | "tokens" | "messages";

/** One interrupt asked by a task: the question and the key its answer is given under. */
export interface PendingInterrupt {
  key: string;
  value: JsonValue;
}

/**
 * Thrown by `ctx.interrupt` to pause the task; the engine catches it. Do not catch it in a
 * node, or rethrow it when you do. Code that runs several things concurrently (like the tool
 * runner) may merge the interrupts of several into one.
 */
export class GraphInterrupt extends Error {
  readonly interrupts: PendingInterrupt[];
  constructor(interrupts: PendingInterrupt[]) {
    super(
      `Paused for ${interrupts.length} interrupt(s): ${interrupts.map((i) => i.key).join(", ")}`,
    );
    this.name = "GraphInterrupt";
    this.interrupts = interrupts;
  }
}

/** Whether an error is a {@link GraphInterrupt}. */
export function isGraphInterrupt(e: unknown): e is GraphInterrupt {
  return e instanceof GraphInterrupt;
}

/**
 * The key of an interrupt as `options` give it, or `undefined` for the default key.
 *
 * @param where - who asked, for the message, such as `Node "ask" of graph "g"`.
 * @throws TypeError if `options` is not an object or its `key` is not a non-empty string.
 */
export function interruptKey(options: unknown, where: string): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(
      `${where}: ctx.interrupt(value, options): options must be an object { key? }, got ${describeValue(options)}`,
    );
  }
  const key = (options as { key?: unknown }).key;
  if (key === undefined) return undefined;
  if (typeof key !== "string" || key === "") {
    throw new TypeError(
      `${where}: ctx.interrupt(value, { key }): key must be a non-empty string, got ${typeof key === "string" ? '""' : describeValue(key)}; omit it for the default key`,
    );
  }
  return key;
}

/** Run information and helpers for a running node. */
export interface NodeContext<C = unknown> {
  /** Name of the graph. */
  readonly graphName: string;
  /** Id of this run. */
  readonly runId: string;
  /** Thread of the run, or `null` without one. */
  readonly threadId: string | null;
  /** Superstep, counted from 0 on the thread's branch. */
  readonly step: number;
  /** Name of the node. */
  readonly node: string;
  /** History branch of the run. */
  readonly branchId: string;
  /** Id of the outermost run when the graph runs inside another one; this run's id otherwise. */
  readonly rootRunId: string;
  /**
   * Id of the run this one continues: its own id for a run started with input; for a run that
   * continues a thread (`invoke(null, { threadId })`, a resume), the id of the run that took
   * the input. Budgets "per run and its resumes" key on it.
   */
  readonly originRunId: string;
  /** Id of this task within the run's thread: `"<step>:<index>"`. */
  readonly taskId: string;
  /** Middleware of the run, in order. */
  readonly middleware: readonly unknown[];
  /** The graph's workspace, or `null`. */
  readonly workspace: unknown;
  /** Store of the run's history, or `null`. */
  readonly stateStore: StateStore | null;
  /**
   * Long-term memory shared across threads and runs (the run's or graph's `memoryStore`), or
   * `null`. LangGraph: `runtime.store` / `config.store`. Writes are visible to every later read.
   */
  readonly memoryStore: MemoryStore | null;
  /** The graph's state definition, or `null` for a plain-object state. */
  readonly stateSchema: StateDefinition | null;
  /** Stream modes the caller asked for (empty for `invoke`). */
  readonly streamModes: readonly StreamMode[];
  /** Saved with the task when it pauses (and by `saveCache()`), given back when it runs again. JSON only. */
  readonly cache: JsonObject;
  /** Answers to this task's interrupts by interrupt key, read-only. */
  readonly resumeValues: Readonly<Record<string, JsonValue>>;
  /** The `context` of the run; never stored, so pass it again on resume. @throws ContextNotProvidedError when the run has none. */
  readonly context: C;
  /** Whether the run was given a `context`. */
  readonly hasContext: boolean;
  /** Fires when the run is cancelled, closed, or the node times out. Pass it to everything slow. */
  readonly signal: AbortSignal;
  /** The node's tracing scope when the graph has a tracer (for spans of model and tool calls; see `traced`), else `null`. */
  readonly trace: TraceScope | null;
  /**
   * Emit a stream event (`"custom"` unless `mode` says `"tokens"` or `"messages"`) with this
   * node, step and task. A no-op when nobody streams that mode. `modelNode` sends its stream
   * chunks as `"tokens"` and its `AIMessage` as `"messages"`; `toolRunner` its `ToolMessage`s.
   */
  emit(data: unknown, options?: { mode?: EmitMode }): void;
  /**
   * Pause the run and ask a person. Returns the answer when the run is resumed with one for `key`.
   * @param value - the question, JSON.
   * @param options.key - the answer's key; default `"<taskId>#<n>"` for the n-th interrupt of this task (from 0).
   * @throws GraphInterrupt to pause (caught by the engine).
   * @throws TypeError if `options` is not an object or `key` is not a non-empty string.
   */
  interrupt<T extends JsonValue = JsonValue>(value: JsonValue, options?: { key?: string }): T;
  /** Persist `cache` now (with a state store), so a crash re-runs only what was not saved. */
  saveCache(): Promise<void>;
  /** Pass a stream event of a nested run (a subgraph) on to this run's stream, when its mode is streamed. */
  emitEvent(event: StreamEvent): void;
  /**
   * Start sub-agents concurrently; they belong to this run. A run that finishes or pauses with
   * sub-agents never gathered cancels them and raises `GraphExecutionError`; a run that fails
   * or is closed cancels them too.
   * @param options.threadPrefix - prefix of their threads `"<prefix>:sub:<id>"`; default this run's thread id.
   * @throws TypeError if a task has no input; ValueError if `threadPrefix` is empty.
   */
  spawn(tasks: readonly AgentTask[], options?: { threadPrefix?: string }): Promise<AgentHandle[]>;
  /**
   * Wait for sub-agents started with `spawn` (handles, or ids spawned in this run by any node).
   * @param options.timeoutMs - ms to wait before cancelling the unfinished ones.
   * @param options.returnExceptions - return failed and cancelled results instead of raising.
   * @throws AgentGroupError, AgentTimeoutError, AgentHandleLostError.
   */
  gather(
    handles: readonly (AgentHandle | string)[],
    options?: { timeoutMs?: number; returnExceptions?: boolean },
  ): Promise<AgentResult[]>;
  /** Start sub-agents on a background executor; poll them later, in this run or another. @throws TypeError if a task has no input. */
  submit(
    tasks: readonly AgentTask[],
    options: { executor: AgentExecutor; threadPrefix?: string },
  ): Promise<DurableAgentHandle[]>;
  /** Check background sub-agents without waiting: a result, or `null` while running. @throws AgentHandleLostError. */
  pollAgents(
    handles: readonly DurableAgentHandle[],
    options: { executor: AgentExecutor },
  ): Promise<(AgentResult | null)[]>;
}

/** Internal hooks a task context calls into. */
export interface TaskHost {
  emit(mode: EmitMode, node: string, step: number, taskId: string, data: unknown): void;
  wants(mode: StreamMode): boolean;
  saveCache(taskId: string, node: string, step: number, cache: JsonObject): Promise<void>;
  forward(event: StreamEvent): void;
  subAgents(): SubAgents;
}

/** The engine's implementation of {@link NodeContext}. */
export class TaskContext<C = unknown> implements NodeContext<C> {
  #interrupts = 0;
  /** Whether the node read an answer (`ctx.interrupt` returned one, or it read `resumeValues`). */
  usedAnswers = false;
  constructor(
    readonly graphName: string,
    readonly runId: string,
    readonly rootRunId: string,
    readonly originRunId: string,
    readonly threadId: string | null,
    readonly branchId: string,
    readonly step: number,
    readonly node: string,
    readonly taskId: string,
    readonly middleware: readonly unknown[],
    readonly workspace: unknown,
    readonly stateStore: StateStore | null,
    readonly stateSchema: StateDefinition | null,
    readonly streamModes: readonly StreamMode[],
    readonly cache: JsonObject,
    private readonly answers: Readonly<Record<string, JsonValue>>,
    readonly signal: AbortSignal,
    private readonly host: TaskHost,
    private readonly runContext: { value: C | undefined; given: boolean },
    readonly trace: TraceScope | null = null,
    readonly memoryStore: MemoryStore | null = null,
  ) {}

  get context(): C {
    if (!this.runContext.given) {
      throw new ContextNotProvidedError(
        `Node "${this.node}" of graph "${this.graphName}" read ctx.context, but the run was started without one; pass it as invoke(input, { context }) (and again on resume: it is never stored)`,
      );
    }
    return this.runContext.value as C;
  }

  get resumeValues(): Readonly<Record<string, JsonValue>> {
    for (const _ in this.answers) {
      this.usedAnswers = true;
      break;
    }
    return this.answers;
  }

  get hasContext(): boolean {
    return this.runContext.given;
  }

  emit(data: unknown, options?: { mode?: EmitMode }): void {
    const mode = options?.mode ?? "custom";
    if (this.host.wants(mode)) this.host.emit(mode, this.node, this.step, this.taskId, data);
  }

  interrupt<T extends JsonValue = JsonValue>(value: JsonValue, options?: { key?: string }): T {
    const key =
      interruptKey(options, `Node "${this.node}" of graph "${this.graphName}"`) ??
      `${this.taskId}#${this.#interrupts}`;
    this.#interrupts++;
    if (Object.hasOwn(this.answers, key)) {
      this.usedAnswers = true;
      return this.answers[key] as T;
    }
    throw new GraphInterrupt([{ key, value }]);
  }

  saveCache(): Promise<void> {
    return this.host.saveCache(this.taskId, this.node, this.step, this.cache);
  }

  emitEvent(event: StreamEvent): void {
    if (this.host.wants(event.mode)) this.host.forward(event);
  }

  spawn(tasks: readonly AgentTask[], options?: { threadPrefix?: string }): Promise<AgentHandle[]> {
    return this.host.subAgents().spawn(tasks, options);
  }

  gather(
    handles: readonly (AgentHandle | string)[],
    options?: { timeoutMs?: number; returnExceptions?: boolean },
  ): Promise<AgentResult[]> {
    return this.host.subAgents().gather(handles, options);
  }

  submit(
    tasks: readonly AgentTask[],
    options: { executor: AgentExecutor; threadPrefix?: string },
  ): Promise<DurableAgentHandle[]> {
    return this.host.subAgents().submit(tasks, options);
  }

  pollAgents(
    handles: readonly DurableAgentHandle[],
    options: { executor: AgentExecutor },
  ): Promise<(AgentResult | null)[]> {
    return this.host.subAgents().pollAgents(handles, options);
  }
}
