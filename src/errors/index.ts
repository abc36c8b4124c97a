/**
 * Every error nodestep raises on purpose is a subclass of {@link NodestepError}.
 *
 * Each class has typed fields for where it happened (graph, node, field, tool, thread…),
 * and errors caused by user code keep the original error as `cause`.
 *
 * @module
 */

/** Options shared by every nodestep error constructor. */
export interface NodestepErrorOptions {
  /** The error that caused this one, when there is one. */
  cause?: unknown;
}

/**
 * Base class of every nodestep error. Catch it to handle anything nodestep raised.
 *
 * @example
 * ```ts
 * try { await graph.invoke(input); } catch (e) { if (e instanceof NodestepError) console.error(e.message); }
 * ```
 */
export class NodestepError extends Error {
  constructor(message: string, options?: NodestepErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** Python's `ValueError`: an argument has the right type but a value that is not allowed. */
export class ValueError extends NodestepError {}

/** Where a graph error happened; every field is optional. */
export interface GraphErrorLocation extends NodestepErrorOptions {
  /** Name of the graph. */
  graph?: string;
  /** Name of the node. */
  node?: string;
}

/**
 * A graph, node or agent is configured so that it cannot run: an unknown or duplicate node
 * name, a node with no way out, a conditional target that is not a node, two tools with one
 * name, a state field an agent node needs but that is not declared. Raised when the graph is
 * built (`flow`) or, for agent nodes, before the model or tool is called.
 */
export class GraphConfigError extends NodestepError {
  readonly graph: string | undefined;
  readonly node: string | undefined;
  constructor(message: string, options?: GraphErrorLocation) {
    super(message, options);
    this.graph = options?.graph;
    this.node = options?.node;
  }
}

/** A run went wrong while executing: routing to an undeclared target, sub-agents never gathered, a node's own failure. */
export class GraphExecutionError extends NodestepError {
  readonly graph: string | undefined;
  readonly node: string | undefined;
  readonly step: number | undefined;
  constructor(message: string, options?: GraphErrorLocation & { step?: number }) {
    super(message, options);
    this.graph = options?.graph;
    this.node = options?.node;
    this.step = options?.step;
  }
}

/** A run reached `maxSteps` supersteps and still had nodes to run. Nothing past the limit ran. */
export class StepLimitError extends GraphExecutionError {
  /** The superstep limit that was reached. */
  readonly maxSteps: number;
  /** Names of the nodes that would have run next. */
  readonly pending: readonly string[];
  constructor(
    message: string,
    options: GraphErrorLocation & { maxSteps: number; pending: readonly string[] },
  ) {
    super(message, { ...options, step: options.maxSteps });
    this.maxSteps = options.maxSteps;
    this.pending = options.pending;
  }
}

/** A run was cancelled through its `AbortSignal`; `cause` is the signal's reason. */
export class RunCancelledError extends NodestepError {
  readonly graph: string | undefined;
  constructor(message: string, options?: GraphErrorLocation) {
    super(message, options);
    this.graph = options?.graph;
  }
}

/**
 * A run on a thread was stopped at a superstep boundary because another run asked for the
 * thread with the busy-thread policy `"interrupt"` (or `"rollback"`; see docs/busy-threads.md).
 * What it committed is kept (for `"rollback"`, the run that asked undoes it); the run recorded
 * `run_finished` (status `"interrupted"`, with `stoppedBy`) and gave the thread back.
 *
 * @example
 * ```ts
 * try { await graph.invoke(input, { threadId }); }
 * catch (e) { if (e instanceof RunStoppedError) console.log(`stopped by ${e.stoppedBy}`); }
 * ```
 */
export class RunStoppedError extends NodestepError {
  readonly graph: string;
  readonly threadId: string;
  readonly branchId: string;
  /** The run that was stopped. */
  readonly runId: string;
  /** The run that asked it to stop. */
  readonly stoppedBy: string;
  /** The number of the next superstep, which did not start. */
  readonly step: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      graph: string;
      threadId: string;
      branchId: string;
      runId: string;
      stoppedBy: string;
      step: number;
    },
  ) {
    super(message, options);
    this.graph = options.graph;
    this.threadId = options.threadId;
    this.branchId = options.branchId;
    this.runId = options.runId;
    this.stoppedBy = options.stoppedBy;
    this.step = options.step;
  }
}

/** An update (or a `Send` payload, or the input) does not fit the state: an unknown field, a wrong type, a misplaced `Replace`. */
export class StateUpdateError extends NodestepError {
  /** Node that wrote the update, or `"__input__"` for the run's input. */
  readonly node: string | undefined;
  /** The state field at fault. */
  readonly field: string | undefined;
  constructor(message: string, options?: NodestepErrorOptions & { node?: string; field?: string }) {
    super(message, options);
    this.node = options?.node;
    this.field = options?.field;
  }
}

/** A state store refused or failed an operation: a value that does not survive JSON, a damaged row, an unknown thread. */
export class StateStoreError extends NodestepError {
  readonly threadId: string | undefined;
  readonly branchId: string | undefined;
  /** Path of the value at fault, such as `messages[3].content`. */
  readonly field: string | undefined;
  constructor(
    message: string,
    options?: NodestepErrorOptions & { threadId?: string; branchId?: string; field?: string },
  ) {
    super(message, options);
    this.threadId = options?.threadId;
    this.branchId = options?.branchId;
    this.field = options?.field;
  }
}

/** A node ran longer than its `timeoutMs`. */
export class NodeTimeoutError extends NodestepError {
  readonly node: string;
  /** The limit, in milliseconds. */
  readonly timeoutMs: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & { node: string; timeoutMs: number },
  ) {
    super(message, options);
    this.node = options.node;
    this.timeoutMs = options.timeoutMs;
  }
}

/** A tool call failed: unknown tool, invalid arguments, or the tool threw (`cause`). */
export class ToolExecutionError extends NodestepError {
  /** Name of the tool the model asked for. */
  readonly tool: string;
  /** Id of the tool call. */
  readonly toolCallId: string | undefined;
  constructor(
    message: string,
    options: NodestepErrorOptions & { tool: string; toolCallId?: string },
  ) {
    super(message, options);
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
  }
}

/** Several tool calls of one model turn failed with `toolErrors: "raise"`; `errors` holds each, in call order. */
export class ToolGroupExecutionError extends NodestepError {
  readonly errors: readonly Error[];
  constructor(message: string, options: NodestepErrorOptions & { errors: readonly Error[] }) {
    super(message, options);
    this.errors = options.errors;
  }
}

/** A tool call was denied (by a person through approval, or by a tool limit); it reaches the model as a tool message with `reason`. */
export class ToolDeniedError extends NodestepError {
  readonly tool: string;
  readonly toolCallId: string | undefined;
  readonly reason: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { tool: string; toolCallId?: string; reason?: string },
  ) {
    super(message, options);
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
    this.reason = options.reason ?? message;
  }
}

/** A tool or node needed the run's `context` but the run was started without one. */
export class ContextNotProvidedError extends NodestepError {}

/** The message history is not valid for a model call: a tool call without its result right after it, or a result that answers no call. */
export class ChatHistoryError extends NodestepError {
  /** Node that found the problem. */
  readonly node: string | undefined;
  /** Index in the messages of the message at fault. */
  readonly index: number | undefined;
  constructor(message: string, options?: NodestepErrorOptions & { node?: string; index?: number }) {
    super(message, options);
    this.node = options?.node;
    this.index = options?.index;
  }
}

/** The model's final answer does not parse into the `outputSchema`. */
export class StructuredOutputError extends NodestepError {
  readonly schemaName: string;
  readonly rawContent: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & { schemaName: string; rawContent: string | null },
  ) {
    super(message, options);
    this.schemaName = options.schemaName;
    this.rawContent = options.rawContent;
  }
}

/** A chat model provider failed: authentication, rate limit, server error, time-out, a broken stream, or a malformed streamed tool call. */
export class ModelProviderError extends NodestepError {
  /** Provider name such as `"openai"`, `"anthropic"`, `"ollama"`, `"scripted"`. */
  readonly provider: string;
  /** HTTP status, when the provider answered with one. */
  readonly status: number | undefined;
  /** Whether trying the same call again can help (rate limits, server errors, time-outs). */
  readonly retryable: boolean;
  /** How long the provider asked to wait before a retry (its `Retry-After` header), in ms, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      provider: string;
      status?: number;
      retryable?: boolean;
      retryAfterMs?: number;
    },
  ) {
    super(message, options);
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A message holds a part the chat integration cannot send (audio to Anthropic, a file to
 * Ollama…): it is never dropped silently. `partType` is the part's `type`, `path` where it is
 * in the request (`messages[2].content[1]`).
 */
export class UnsupportedPartError extends ModelProviderError {
  readonly partType: string;
  readonly path: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { provider: string; partType: string; path: string },
  ) {
    super(message, { ...options, retryable: false });
    this.partType = options.partType;
    this.path = options.path;
  }
}

/**
 * Every model of a `fallbackChat` failed with an error it moves on for. `attempts` lists each
 * model and its error, in order; `status` and `retryable` are the last error's.
 */
export class FallbackExhaustedError extends ModelProviderError {
  readonly attempts: readonly { model: string; error: unknown }[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      attempts: readonly { model: string; error: unknown }[];
      status?: number;
      retryable?: boolean;
    },
  ) {
    super(message, { ...options, provider: "fallback" });
    this.attempts = options.attempts;
  }
}

/**
 * A model string given to `chatModel` cannot be made into a chat model: it is not
 * `provider:model`, the provider is unknown, or its package is not installed. The message is
 * one line saying what to do (`npm install @ai-sdk/mistral`, `registerProvider(...)`).
 */
export class ModelSpecError extends NodestepError {
  /** The model string, as given. */
  readonly spec: string;
  constructor(message: string, options: NodestepErrorOptions & { spec: string }) {
    super(message, options);
    this.spec = options.spec;
  }
}

/** Arguments or a result do not match a tool's schema (from `callTool`); `issues` lists each problem. */
export class ValidationError extends NodestepError {
  readonly issues: readonly { path: (string | number)[]; message: string }[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      issues: readonly { path: (string | number)[]; message: string }[];
    },
  ) {
    super(message, options);
    this.issues = options.issues;
  }
}

/** One pending interrupt of a paused run. */
export interface InterruptInfo {
  /** Key the answer is given under in `resume`. */
  key: string;
  /** What the node asked. */
  value: unknown;
  /** Node that asked. */
  node: string;
  /** Task that asked. */
  taskId: string;
}

/** `runAgent` found the run paused for human input; resume with `invoke(null, { threadId, resume })`. */
export class RunInterruptedError extends NodestepError {
  readonly threadId: string | null;
  readonly interrupts: readonly InterruptInfo[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      threadId: string | null;
      interrupts: readonly InterruptInfo[];
    },
  ) {
    super(message, options);
    this.threadId = options.threadId;
    this.interrupts = options.interrupts;
  }
}

/**
 * A memory store (`MemoryStore`, long-term memory across threads) refused or failed an
 * operation: a bad namespace, key, value, option or vector, a limit passed, a database error,
 * a closed store. `namespace` and `key` say which item, when there is one.
 */
export class MemoryStoreError extends NodestepError {
  /** Namespace of the item at fault. */
  readonly namespace: readonly string[] | undefined;
  /** Key of the item at fault. */
  readonly key: string | undefined;
  constructor(
    message: string,
    options?: NodestepErrorOptions & { namespace?: readonly string[]; key?: string },
  ) {
    super(message, options);
    this.namespace = options?.namespace;
    this.key = options?.key;
  }
}

/** Another writer appended to the branch since this one last read it (optimistic concurrency), or holds its lease. */
export class ConcurrentWriteError extends StateStoreError {}

/** A thread is already running on this branch; a second run fails at once instead of interleaving. */
export class ThreadBusyError extends StateStoreError {}

/**
 * A run lost its thread's lease while it ran: renewing it failed (the store was unreachable)
 * or answered `false` (another writer took it over, say after the lease expired while this
 * process was paused). The run stops writing at once: nothing is appended after the renewal
 * that failed, and the run ends with this error. The thread is left as its last stored event
 * says; the writer that holds the lease now (or a later `invoke(null, { threadId })`) goes on.
 */
export class LeaseLostError extends StateStoreError {}

/** No such thread or branch in the store. */
export class UnknownBranchError extends StateStoreError {}

/** No such event in the thread. */
export class UnknownEventError extends StateStoreError {
  readonly eventId: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { threadId?: string; eventId: string },
  ) {
    super(message, options);
    this.eventId = options.eventId;
  }
}

/**
 * A workspace refused or failed a file operation. `reason` says why:
 * `"absolute-path"`, `"parent-segment"` (`..`), `"nul-byte"`, `"invalid-path"` (empty, or a
 * backslash), `"name-too-long"` (a segment over 255 bytes), `"path-too-long"` (over 4096
 * bytes), `"outside-root"` (a symbolic link leads out of the root), `"not-found"`,
 * `"is-a-directory"`, `"not-a-directory"`, `"not-a-file"` (a device, a pipe, a socket),
 * `"broken-link"` (a write through a link to nothing), `"hard-link"` (a regular file with more
 * than one hard link, refused unless the workspace allows them), `"changed"` (the directory
 * changed under the call between its check and its use), `"io-error"` (any other failure of
 * the file system, its code in the message). `path` is the path as the caller gave it.
 */
export class WorkspaceError extends NodestepError {
  readonly path: string;
  readonly reason:
    | "absolute-path"
    | "parent-segment"
    | "nul-byte"
    | "invalid-path"
    | "name-too-long"
    | "path-too-long"
    | "outside-root"
    | "not-found"
    | "is-a-directory"
    | "not-a-directory"
    | "not-a-file"
    | "broken-link"
    | "hard-link"
    | "changed"
    | "io-error";
  constructor(
    message: string,
    options: NodestepErrorOptions & { path: string; reason: WorkspaceError["reason"] },
  ) {
    super(message, options);
    this.path = options.path;
    this.reason = options.reason;
  }
}

/** A run and its resumes asked the model more often than `ModelCallLimitMiddleware` allows. */
export class ModelCallLimitError extends NodestepError {
  /** The limit. */
  readonly maxModelCalls: number;
  /** Id of the run the count belongs to (`originRunId`), or `null` outside a graph. */
  readonly runId: string | null;
  /** Node that asked. */
  readonly node: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      maxModelCalls: number;
      runId: string | null;
      node: string | null;
    },
  ) {
    super(message, options);
    this.maxModelCalls = options.maxModelCalls;
    this.runId = options.runId;
    this.node = options.node;
  }
}

/**
 * The summary call of a `SummarizationMiddleware` with `onFailure: "raise"` failed (the
 * summary model threw, or answered without text). The history was left as it was and the
 * step failed; the model's own error is the `cause`.
 */
export class SummarizationError extends NodestepError {
  /** Name of the summary model (`chat.model`). */
  readonly model: string;
  /** Node whose model call was to be summarized for, or `null` outside a graph. */
  readonly node: string | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & { model: string; node: string | null },
  ) {
    super(message, options);
    this.model = options.model;
    this.node = options.node;
  }
}

/**
 * A thread used up the budget of `UsageBudgetMiddleware` (tokens or US dollars), or a person
 * declined to go past it. Token counts are `totalTokens`; amounts are US dollars.
 */
export class UsageBudgetExceededError extends NodestepError {
  readonly threadId: string;
  readonly branchId: string;
  /** Node whose model call was refused. */
  readonly node: string;
  /** Tokens the branch has used. */
  readonly usedTokens: number;
  /** The token limit (raises approved included), or `null` when there is none. */
  readonly maxTokens: number | null;
  /** What the branch has cost, or `null` without a cost limit. */
  readonly usedCostUsd: number | null;
  /** The cost limit (raises approved included), or `null` when there is none. */
  readonly maxCostUsd: number | null;
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      threadId: string;
      branchId: string;
      node: string;
      usedTokens: number;
      maxTokens: number | null;
      usedCostUsd: number | null;
      maxCostUsd: number | null;
    },
  ) {
    super(message, options);
    this.threadId = options.threadId;
    this.branchId = options.branchId;
    this.node = options.node;
    this.usedTokens = options.usedTokens;
    this.maxTokens = options.maxTokens;
    this.usedCostUsd = options.usedCostUsd;
    this.maxCostUsd = options.maxCostUsd;
  }
}

/** What an `AgentResult` says of a sub-agent's failure: plain data, the same from every executor. */
export interface AgentFailure {
  name: string;
  message: string;
}

/** Sub-agents failed or were cancelled and `gather` was not asked to return exceptions; `results` holds every result, in handle order. */
export class AgentGroupError extends NodestepError {
  readonly results: readonly { id: string; status: string; error: AgentFailure | null }[];
  readonly errors: readonly unknown[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      results: readonly { id: string; status: string; error: AgentFailure | null }[];
      errors: readonly unknown[];
    },
  ) {
    super(message, options);
    this.results = options.results;
    this.errors = options.errors;
  }
}

/** `gather`'s `timeoutMs` expired before every sub-agent finished; the unfinished ones were cancelled. */
export class AgentTimeoutError extends NodestepError {
  /** Ids of the sub-agents that had not finished. */
  readonly pending: readonly string[];
  readonly timeoutMs: number;
  constructor(
    message: string,
    options: NodestepErrorOptions & { pending: readonly string[]; timeoutMs: number },
  ) {
    super(message, options);
    this.pending = options.pending;
    this.timeoutMs = options.timeoutMs;
  }
}

/** A handle was not spawned in this run, was already gathered, or is unknown to the executor. */
export class AgentHandleLostError extends NodestepError {
  readonly handleId: string;
  constructor(message: string, options: NodestepErrorOptions & { handleId: string }) {
    super(message, options);
    this.handleId = options.handleId;
  }
}
