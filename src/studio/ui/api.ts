/**
 * The studio's typed client of the server's `/api` routes (docs/server.md): one function per
 * route, JSON in and out, errors as {@link ApiError} (the server's `{ error: { type, message } }`
 * body), and runs streamed as server-sent events ({@link StudioApi.streamRun}). Shared by every
 * panel: the shell makes one with {@link createApi} and passes it down as `api`.
 */
import type {
  BranchNode,
  Cost,
  GraphView,
  GraphViewEdge,
  HistoryEntry,
  Json,
  JsonChange,
  NodeMetrics,
  RunMetrics,
  TitledThread,
  TraceSpan,
  UsageTotals,
} from "../../server/wire-types.ts";
import { readSse } from "./sse.ts";

// The server's own answer types (one module for both builds, types only).
export type {
  BranchNode,
  Cost,
  GraphView,
  GraphViewEdge,
  HistoryEntry,
  Json,
  JsonChange,
  NodeMetrics,
  RunMetrics,
  TitledThread,
  TraceSpan,
  UsageTotals,
};

/** A tool of `GET /api/tools`: what the model is offered, with the JSON schema of its arguments. */
export interface ToolView {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** The parts of a JSON schema the studio's forms read. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: Json[];
  default?: Json;
  [more: string]: unknown;
}

/** The static breakpoint a thread is paused at. */
export interface Breakpoint {
  when: "before" | "after";
  /** The superstep that runs when the thread continues. */
  step: number;
  nodes: string[];
}

/** A thread of `GET /api/threads`. */
export interface ThreadInfo {
  threadId: string;
  branches: string[];
  /** Time of its last event, in ms since the epoch. */
  updatedAt: number;
}

/** An interrupt a thread waits on (the snapshot's `interrupts`). */
export interface InterruptInfo {
  /** The key its answer is given under (`resume: { [key]: answer }`). */
  key: string;
  /** What the node asked: a question, an approval request, any JSON. */
  value: Json;
  node?: string;
  taskId?: string;
  [more: string]: unknown;
}

/** `GET /api/threads/:id/state`: a branch's state after its last event or after `eventId`. */
export interface StateSnapshot {
  threadId: string;
  branchId: string;
  state: Record<string, Json>;
  /** The superstep that runs next. */
  step: number;
  /** Nodes of the superstep that runs next; empty when the thread is done. */
  next: string[];
  interrupts: InterruptInfo[];
  /** Status of the last run (`"completed"`, `"interrupted"`, `"failed"`, …), `null` for an empty thread. */
  status: string | null;
  lastEventId: string | null;
  /** The static breakpoint it is paused at (`interruptBefore` / `interruptAfter`), or `null`. */
  breakpoint: Breakpoint | null;
}

/** An event of `GET /api/threads/:id/history` (a stored event). */
export interface HistoryEvent {
  id: string;
  type: string;
  node?: string | null;
  step?: number | null;
  runId?: string | null;
  [more: string]: unknown;
}

/** `POST /api/threads/:id/fork`: the new branch. */
export interface BranchInfo {
  threadId: string;
  branchId: string;
  parent: Json;
  lastSeq: number;
}

/** An error answer of the server, or a network failure (`status` 0, `type` `"NetworkError"`). */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.type = type;
  }
}

/** Stream modes a run may ask for (`modes` of a run body). */
export type StreamMode =
  | "updates"
  | "values"
  | "custom"
  | "tokens"
  | "messages"
  | "tasks"
  | "checkpoints"
  | "debug";

/** The body of `POST /api/threads/:id/runs/stream`. */
export interface RunRequest {
  message?: string;
  input?: Record<string, Json> | null;
  resume?: Record<string, Json>;
  branchId?: string;
  modes?: StreamMode[];
  interruptBefore?: string[];
  interruptAfter?: string[];
  /** A model of `GET /api/models` to run with (the server's default without). */
  model?: string;
}

/** A graph stream event as the run stream carries it (the SSE event's name is its `mode`). */
export interface RunStreamEvent {
  mode: StreamMode;
  node: string | null;
  step: number;
  taskId: string | null;
  data: Json;
}

/** The `end` event of a run stream. */
export interface RunEnd {
  threadId: string;
  branchId: string;
  status: string | null;
  interrupts: InterruptInfo[];
  lastEventId: string | null;
  state: Record<string, Json>;
}

/** What {@link StudioApi.streamRun} calls as the run goes on. */
export interface RunHandlers {
  /** The run started: its id. */
  onStart?(run: { threadId: string; branchId: string; runId: string }): void;
  /** Each graph stream event, as it comes. */
  onEvent?(event: RunStreamEvent): void;
}

/** How a run ended: `end` (finished or paused) or `error` (the run failed; `error` its body). */
export type RunOutcome =
  | { kind: "end"; end: RunEnd }
  | { kind: "error"; error: { type: string; message: string } };

/** The client every panel gets as its `api` prop. */
export interface StudioApi {
  graph(): Promise<GraphView>;
  /** `GET /api/tools`: the tools of the graph's model nodes. */
  tools(): Promise<ToolView[]>;
  /**
   * `GET /api/threads`: the 100 most recently updated threads (the server's default page; the
   * sidebar lists `threadList`'s pages, and uses these only until that answers).
   */
  threads(): Promise<ThreadInfo[]>;
  createThread(): Promise<string>;
  deleteThread(threadId: string): Promise<string[]>;
  state(threadId: string, branchId: string, eventId?: string | null): Promise<StateSnapshot>;
  history(threadId: string, branchId: string): Promise<HistoryEvent[]>;
  /** Fork after `eventId`, as branch `branchId` (a name) when given. */
  fork(threadId: string, eventId: string, branchId?: string): Promise<BranchInfo>;
  /** `POST /api/threads/:id/state`: change the state as `asNode` (or as nothing), see `graph.updateState`. */
  updateState(
    threadId: string,
    branchId: string,
    values: Record<string, Json>,
    asNode?: string | null,
  ): Promise<StateSnapshot>;
  /** `POST /api/threads/:id/runs/:runId/cancel`: stop a run going on (it ends with `RunCancelledError`). */
  cancelRun(threadId: string, runId: string): Promise<void>;
  /** Start a streamed run and read it to its end. @throws ApiError when the server refuses it (4xx). */
  streamRun(threadId: string, body: RunRequest, handlers?: RunHandlers): Promise<RunOutcome>;
  /** `GET /api/models`: the model in use (`null` when the server does not know) and the choices. */
  models(): Promise<{ current: string | null; choices: string[] }>;
  /** The model the next runs ask for (`model` in their body), `null` for the server's default. */
  setRunModel(model: string | null): void;
  /** What {@link setRunModel} set. */
  runModel(): string | null;
  /** `GET …/history-view`: the branch's events as readable entries with state diffs. */
  historyView(threadId: string, branchId: string): Promise<HistoryEntry[]>;
  /** `GET …/branches`: the thread's branches as fork trees. */
  branches(threadId: string): Promise<BranchNode[]>;
  /** `GET …/metrics`: per run and node metrics and traces. */
  metrics(threadId: string, branchId: string): Promise<RunMetrics[]>;
  /** `GET /api/thread-list`: threads with titles; `q` searches titles and ids. */
  threadList(q?: string): Promise<TitledThread[]>;
  /** Any other route: `GET` or `POST` with JSON, the answer's JSON. */
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Build a client; `apiKey()` gives the key to send as `Authorization: Bearer`, or `""`. */
export function createApi(apiKey: () => string = () => ""): StudioApi {
  async function send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    const key = apiKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(path, init);
    } catch (e) {
      throw new ApiError(0, "NetworkError", `The server did not answer: ${(e as Error).message}`);
    }
    if (res.ok) return res;
    let error = { type: "HttpError", message: `${res.status} ${res.statusText}` };
    try {
      const parsed = (await res.json()) as { error?: { type: string; message: string } };
      if (parsed.error) error = parsed.error;
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(res.status, error.type, error.message);
  }
  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await send(method, path, body)).json()) as T;
  }
  let runModel: string | null = null;
  const thread = (id: string, rest = "") => `/api/threads/${encodeURIComponent(id)}${rest}`;
  const q = (params: Record<string, string | null | undefined>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) s.set(k, v);
    const text = s.toString();
    return text ? `?${text}` : "";
  };
  return {
    request,
    graph: () => request<GraphView>("GET", "/api/graph"),
    tools: async () => (await request<{ tools: ToolView[] }>("GET", "/api/tools")).tools,
    threads: async () => (await request<{ threads: ThreadInfo[] }>("GET", "/api/threads")).threads,
    createThread: async () =>
      (await request<{ threadId: string }>("POST", "/api/threads", {})).threadId,
    deleteThread: async (id) =>
      (await request<{ deleted: string[] }>("DELETE", thread(id, "?children=true"))).deleted,
    state: (id, branchId, eventId) =>
      request<StateSnapshot>("GET", thread(id, `/state${q({ branchId, eventId })}`)),
    history: async (id, branchId) =>
      (await request<{ events: HistoryEvent[] }>("GET", thread(id, `/history${q({ branchId })}`)))
        .events,
    models: () => request<{ current: string | null; choices: string[] }>("GET", "/api/models"),
    setRunModel: (model) => {
      runModel = model;
    },
    runModel: () => runModel,
    historyView: async (id, branchId) =>
      (
        await request<{ entries: HistoryEntry[] }>(
          "GET",
          thread(id, `/history-view${q({ branchId })}`),
        )
      ).entries,
    branches: async (id) =>
      (await request<{ branches: BranchNode[] }>("GET", thread(id, "/branches"))).branches,
    metrics: async (id, branchId) =>
      (await request<{ runs: RunMetrics[] }>("GET", thread(id, `/metrics${q({ branchId })}`))).runs,
    threadList: async (text) =>
      (await request<{ threads: TitledThread[] }>("GET", `/api/thread-list${q({ q: text })}`))
        .threads,
    fork: (id, eventId, branchId) =>
      request<BranchInfo>("POST", thread(id, "/fork"), {
        eventId,
        ...(branchId ? { branchId } : {}),
      }),
    cancelRun: async (id, runId) => {
      await request<unknown>("POST", thread(id, `/runs/${encodeURIComponent(runId)}/cancel`), {});
    },
    updateState: (id, branchId, values, asNode) =>
      request<StateSnapshot>("POST", thread(id, "/state"), {
        branchId,
        values,
        ...(asNode ? { asNode } : {}),
      }),
    async streamRun(id, body, handlers = {}) {
      const chosen = runModel !== null && body.model === undefined ? { model: runModel } : {};
      const res = await send("POST", thread(id, "/runs/stream"), { ...body, ...chosen });
      let outcome: RunOutcome | null = null;
      await readSse(res, (event, data) => {
        if (event === "run") handlers.onStart?.(data as never);
        else if (event === "end") outcome = { kind: "end", end: data as unknown as RunEnd };
        else if (event === "error") {
          const e = (data as { error: { type: string; message: string } }).error;
          outcome = { kind: "error", error: e };
        } else if (event !== "timeout") handlers.onEvent?.(data as unknown as RunStreamEvent);
      });
      return (
        outcome ?? {
          kind: "error",
          error: { type: "StreamClosed", message: "The run's stream ended without an end event" },
        }
      );
    },
  };
}
