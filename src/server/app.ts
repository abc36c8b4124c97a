/**
 * `createServer`: the HTTP API of `nodestep serve`, a Hono app over one graph and its store.
 *
 * Stateless between requests: everything a request needs is read from the store, so several
 * servers can share one store (PostgreSQL) behind a load balancer.
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { z } from "zod";
import { HumanMessage } from "../chat/messages.js";
import { BUSY_POLICIES, MAX_BUSY_TIMEOUT_MS } from "../graph/busy.js";
import type { StreamMode } from "../graph/context.js";
import { pickOutput } from "../graph/io-schema.js";
import type { JsonValue } from "../json/index.js";
import { MAX_JSON_DEPTH, prototypeKey, tooDeep } from "../json/index.js";
import { checkPrices, type PriceTable } from "../middleware/prices.js";
import type { StateStore } from "../stores/types.js";
import { defaultStudioDir } from "../studio/assets.js";
import { answerError } from "./answer-errors.js";
import { type ErrorBody, errorAnswer, HttpError } from "./errors.js";
import { describeGraph } from "./graph-view.js";
import { addHistoryRoutes } from "./history-route.js";
import { addMetricsRoute } from "./metrics-route.js";
import {
  addModelsRoute,
  checkModelChoices,
  graphForModel,
  type ModelChoices,
} from "./model-choice.js";
import { type RunQueue, startQueuedRun } from "./run-queue.js";
import { newServerRunId, RunRegistry, type ServerRun, type UIRunReplay } from "./run-registry.js";
import { addRunRoutes } from "./run-routes.js";
import { joinStream, startServerRun } from "./run-stream.js";
import { addStateRoute } from "./state-route.js";
import { registerRuns } from "./stop-runs.js";
import { addStudioRoutes } from "./studio-routes.js";
import { addThreadListRoute } from "./thread-list-route.js";
import { addToolsRoute } from "./tools-route.js";
import type { ServedGraph } from "./types.js";
import { addUIStreamRoutes } from "./ui-stream-route.js";
import { addUsageRoute } from "./usage-route.js";

/** Options of {@link createServer}. */
export interface ServerOptions {
  /** The graph to serve. Its runs, state, history and forks use the graph's own state store. */
  graph: ServedGraph;
  /** The store to list threads from; default (and it must be) the graph's `stateStore`. */
  store?: StateStore | null;
  /** When set, every `/api/*` request needs `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string | null;
  /** The run `context` every run gets (`ctx.context` in nodes and tools); never stored. */
  context?: unknown;
  /** Origins allowed to call the API from a browser (CORS); default none: CORS stays closed. */
  corsOrigins?: readonly string[];
  /**
   * Host names a request may be addressed to (the `Host` header, port left out); default the
   * loopback names `127.0.0.1`, `localhost` and `[::1]`, which guards a local server against
   * DNS rebinding. `null` accepts any host (for a server bound to a public address).
   */
  allowedHosts?: readonly string[] | null;
  /** Largest request body, in bytes; default 1 MiB (413 beyond). */
  maxBodyBytes?: number;
  /** How long a streamed run may take to its first event before the SSE answer starts anyway, in ms; default 1,000. */
  streamStartMs?: number;
  /**
   * Prices by model (see `PriceTable`, docs/usage-and-cost.md): with them, `GET
   * /api/threads/:id/usage` and a run's answer carry `cost` in US dollars; without, `cost` is `null`.
   */
  prices?: PriceTable | null;
  /**
   * Runs going on at once in this server, of every kind (plain, streamed, detached, UI
   * stream); one more answers `429 TooManyRuns`. Default {@link DEFAULT_MAX_CONCURRENT_RUNS}.
   */
  maxConcurrentRuns?: number;
  /** Events each streamed run keeps for clients that join it (the oldest go first); default 10,000. */
  runBufferEvents?: number;
  /** How long a finished run stays listed and joinable, in ms; default 300,000 (5 minutes). */
  keepFinishedRunsMs?: number;
  /** At most this many finished runs stay listed and joinable (the oldest finished go first); default 1,000. */
  keepFinishedRuns?: number;
  /** A `: heartbeat` comment line on the server's SSE streams every this many ms; default 15,000; `0` for none. */
  heartbeatMs?: number;
  /**
   * Models a run may choose by name (`model` in a run body; `GET /api/models` lists them): the
   * graph of each, the same flow with another chat model on the same store. Default none.
   */
  models?: ModelChoices | null;
  /** A joined stream with no run event for this long sends `event: timeout` and closes, in ms; default 300,000; `0` for never. */
  joinIdleMs?: number;
  /**
   * The folder of the studio's build (index.html and assets/), served at `/`; default the
   * package's `dist/studio/` (built by `npm run build`, and by `npm ci` in a checkout).
   * Without index.html there, `/` answers 500 with a page naming the command that builds it.
   */
  studioDir?: string;
  /**
   * Queue runs here instead of running them in this process (docs/workers.md): workers run
   * them (`BullMQRunQueue` and `runRunWorker` of `nodestep/bullmq`, `nodestep worker`), and
   * any server on the same queue streams, lists and cancels them. Default `null`: in process.
   */
  runQueue?: RunQueue | null;
}

/** The default of {@link ServerOptions.maxConcurrentRuns}. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 16;

function positive(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(`createServer: ${name} must be an integer ≥ ${min}, got ${value}`);
  }
  return value;
}

/** The default loopback host names of {@link ServerOptions.allowedHosts}. */
export const LOOPBACK_HOSTS: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

const STREAM_MODES = [
  "updates",
  "values",
  "custom",
  "tokens",
  "messages",
  "tasks",
  "checkpoints",
  "debug",
] as const;
const Id = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (s) => !s.includes("/") && !/\p{Cc}/u.test(s),
    "must not contain '/' or control characters",
  );
/** Breakpoints of one run (`interruptBefore` / `interruptAfter`): node names, or `"*"` for every node. */
const Breakpoints = z.union([z.literal("*"), z.array(z.string().min(1).max(200)).max(1000)], {
  error: 'must be a list of node names (at most 1,000) or "*"',
});
const RunBody = z
  .strictObject({
    input: z.record(z.string(), z.json()).nullable().optional(),
    message: z.string().min(1).optional(),
    resume: z.record(z.string(), z.json()).optional(),
    branchId: Id.optional(),
    modes: z.array(z.enum(STREAM_MODES)).min(1).optional(),
    onBusy: z.enum(BUSY_POLICIES).optional(),
    onBusyTimeoutMs: z.number().int().min(0).max(MAX_BUSY_TIMEOUT_MS).optional(),
    detach: z.boolean().optional(),
    onDisconnect: z.enum(["cancel", "continue"]).optional(),
    model: z.string().min(1).max(200).optional(),
    interruptBefore: Breakpoints.optional(),
    interruptAfter: Breakpoints.optional(),
  })
  .refine(
    (b) => b.onBusyTimeoutMs === undefined || (b.onBusy !== undefined && b.onBusy !== "reject"),
    {
      message:
        'onBusyTimeoutMs is how long onBusy "enqueue", "interrupt" or "rollback" waits: give one of them with it',
    },
  )
  .refine((b) => !(b.input != null && b.message !== undefined), {
    message: "give either input or message, not both",
  })
  .refine((b) => !(b.resume !== undefined && (b.input != null || b.message !== undefined)), {
    message: "resume answers continue a paused run: send them without input or message",
  });
type RunBody = z.infer<typeof RunBody>;
const CreateThreadBody = z.strictObject({ threadId: Id.optional() });
const ForkBody = z.strictObject({ eventId: z.string().min(1), branchId: Id.optional() });

/** The API's routes, as `GET /api` lists them. */
const API_ROUTES = [
  "GET /api/graph",
  "GET /api/tools",
  "GET /api/threads",
  "POST /api/threads",
  "GET /api/threads/:threadId/state",
  "POST /api/threads/:threadId/state",
  "GET /api/threads/:threadId/history",
  "GET /api/threads/:threadId/usage",
  "GET /api/threads/:threadId/history-view",
  "GET /api/threads/:threadId/branches",
  "GET /api/threads/:threadId/metrics",
  "GET /api/thread-list",
  "GET /api/models",
  "POST /api/threads/:threadId/runs",
  "POST /api/threads/:threadId/runs/stream",
  "GET /api/threads/:threadId/runs",
  "GET /api/threads/:threadId/runs/:runId",
  "GET /api/threads/:threadId/runs/:runId/stream",
  "POST /api/threads/:threadId/runs/:runId/cancel",
  "POST /api/threads/:threadId/ui-stream",
  "GET /api/threads/:threadId/ui-stream/:chatId/stream",
  "GET /api/threads/:threadId/ui-messages",
  "POST /api/threads/:threadId/fork",
  "DELETE /api/threads/:threadId",
] as const;

/**
 * The nodestep HTTP API and studio over a graph, as a Hono app. Listen with
 * {@link listen} (or `serve` of `@hono/node-server`), or call `app.fetch(request)`.
 *
 * Routes (see docs/server.md): `GET /` and `GET /assets/:name` (the studio), `GET /health`, and under `/api`:
 * `GET /graph`, `GET /tools` (the model nodes' tools with their JSON schemas), `GET|POST /threads`, `GET /threads/:id/state`, `POST /threads/:id/state`
 * (`updateState`: `{ values, asNode?, branchId? }`), `GET /threads/:id/history`,
 * `GET /threads/:id/usage` (token totals and cost), `POST /threads/:id/runs` (its answer has
 * the run's `usage` and the branch's `threadUsage`; the stream's `end` event `threadUsage`), `POST /threads/:id/runs/stream` (server-sent events),
 * `POST /threads/:id/ui-stream` (the AI SDK UI message stream, for `useChat`; docs/ui-stream.md),
 * `GET /threads/:id/ui-messages` (the conversation as `UIMessage`s),
 * `POST /threads/:id/fork`, `DELETE /threads/:id`; the runs of this server
 * (docs/background-runs.md): `POST /threads/:id/runs` with `detach: true` (202 at once),
 * `GET /threads/:id/runs`, `GET /threads/:id/runs/:runId`, `GET /threads/:id/runs/:runId/stream`
 * (join from `Last-Event-ID`), `POST /threads/:id/runs/:runId/cancel`, and
 * `GET /threads/:id/ui-stream/:chatId/stream` (`useChat({ resume: true })`). More runs at once
 * than `maxConcurrentRuns` answer 429. Errors answer `{ error: { type, message } }` with a 4xx status for
 * the client's mistakes (malformed JSON 400, unknown thread, branch or event 404, busy thread
 * 409, an answer to an interrupt that the graph refuses 400 `InvalidAnswer`, …) and 500 only
 * when the graph's run itself fails.
 *
 * @throws TypeError when the graph has no state store, or `store` is not the graph's, or a
 *   bound (`maxConcurrentRuns`, `runBufferEvents`, …) is not an integer in its range.
 * @throws ValueError when `prices` is not a valid price table.
 * @example
 * ```ts
 * const app = createServer({ graph, apiKey: process.env.NODESTEP_API_KEY });
 * const server = await listen(app, { port: 7331 });
 * ```
 */
export function createServer(options: ServerOptions): Hono {
  const { graph } = options;
  const store = options.store ?? graph.stateStore;
  if (!store) {
    throw new TypeError(
      `createServer: graph "${graph.name}" has no stateStore; threads need one (new Graph(State, { stateStore }))`,
    );
  }
  if (graph.stateStore !== store) {
    throw new TypeError(
      `createServer: the store given is not the stateStore of graph "${graph.name}"; the graph runs on its own store, so pass that one (or none)`,
    );
  }
  const view = describeGraph(graph);
  const apiKeyHash = options.apiKey ? sha256(options.apiKey) : null;
  const allowedHosts =
    options.allowedHosts === null
      ? null
      : new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((h) => h.toLowerCase()));
  const streamStartMs = options.streamStartMs ?? 1_000;
  const context = options.context;
  const runQueue = options.runQueue ?? null;
  const registry = new RunRegistry({
    maxConcurrentRuns: positive(
      "maxConcurrentRuns",
      options.maxConcurrentRuns,
      DEFAULT_MAX_CONCURRENT_RUNS,
      1,
    ),
    bufferEvents: positive("runBufferEvents", options.runBufferEvents, 10_000, 1),
    keepFinishedMs: positive("keepFinishedRunsMs", options.keepFinishedRunsMs, 300_000, 0),
    keepFinishedRuns: positive("keepFinishedRuns", options.keepFinishedRuns, 1_000, 0),
  });
  const join = {
    heartbeatMs: positive("heartbeatMs", options.heartbeatMs, 15_000, 0),
    idleMs: positive("joinIdleMs", options.joinIdleMs, 300_000, 0),
  };

  const app = new Hono();
  app.onError((e, c) => {
    const { status, body } = errorAnswer(e);
    return c.json(body, status as 400);
  });
  app.notFound((c) =>
    c.json(errorBody("NotFound", `No route ${c.req.method} ${c.req.path}`), 404 as const),
  );

  app.use("*", async (c, next) => {
    if (allowedHosts) {
      const host = hostName(c.req.header("host"));
      if (host !== null && !allowedHosts.has(host)) {
        throw new HttpError(
          403,
          "ForbiddenHost",
          `Requests addressed to host "${host}" are refused; this server answers ${[...allowedHosts].join(", ")} (start it with --host to serve other names)`,
        );
      }
    }
    await next();
    c.header("X-Content-Type-Options", "nosniff");
  });
  if (options.corsOrigins && options.corsOrigins.length > 0) {
    app.use(
      "/api/*",
      cors({
        origin: [...options.corsOrigins],
        allowMethods: ["GET", "POST", "OPTIONS"],
        allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
        exposeHeaders: ["X-Nodestep-Run-Id"],
        maxAge: 600,
      }),
    );
  }
  app.use("/api/*", async (c, next) => {
    if (apiKeyHash) {
      const given = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
      if (!given || !timingSafeEqual(sha256(given), apiKeyHash)) {
        c.header("WWW-Authenticate", 'Bearer realm="nodestep"');
        throw new HttpError(
          401,
          "Unauthorized",
          given
            ? "The API key is not valid"
            : "This server needs an API key: send Authorization: Bearer <key>",
        );
      }
    }
    await next();
  });
  app.use(
    "/api/*",
    bodyLimit({
      maxSize: options.maxBodyBytes ?? 1024 * 1024,
      // The rest of the body is not read, so the connection cannot be used again.
      onError: (c) =>
        c.json(
          errorBody(
            "PayloadTooLarge",
            `The request body is larger than ${options.maxBodyBytes ?? 1024 * 1024} bytes`,
          ),
          413,
          { Connection: "close" },
        ),
    }),
  );

  // ---------------------------------------------------------------- studio
  addStudioRoutes(app, graph.name, options.studioDir ?? defaultStudioDir());
  app.get("/health", (c) => c.json({ status: "ok" }));

  // ---------------------------------------------------------------- API
  app.get("/api", (c) => c.json({ graph: graph.name, routes: API_ROUTES }));
  app.get("/api/graph", (c) => c.json(view));
  addToolsRoute(app, graph);

  // After the host, CORS and API key checks above, like every /api route.
  const usage = addUsageRoute(app, store, options.prices ?? null, { param, query });
  addHistoryRoutes(app, graph, store, { param, query });
  addMetricsRoute(
    app,
    graph,
    options.prices == null ? null : checkPrices(options.prices, "createServer: prices"),
    { param, query },
  );
  addThreadListRoute(app, store);
  const models = options.models ? checkModelChoices(graph, options.models) : null;
  addModelsRoute(app, models);
  app.get("/api/threads", async (c) => {
    const limit = count(query(c, "limit"), "limit", 1);
    const offset = count(query(c, "offset"), "offset", 0);
    return c.json({
      threads: await store.listThreads({
        ...(limit === undefined ? {} : { limit }),
        ...(offset === undefined ? {} : { offset }),
      }),
    });
  });

  app.delete("/api/threads/:threadId", async (c) => {
    const threadId = param(c, "threadId");
    const children = query(c, "children");
    if (children !== undefined && children !== "true" && children !== "false") {
      throw new HttpError(400, "InvalidRequest", 'children must be "true" or "false"');
    }
    const deleted = await graph.deleteThread(threadId, { children: children === "true" });
    if (deleted.length === 0) throw unknownThread(threadId);
    return c.json({ deleted });
  });

  app.post("/api/threads", async (c) => {
    const body = await readJson(c, CreateThreadBody);
    const threadId = body.threadId ?? `t-${randomBytes(6).toString("hex")}`;
    if ((await store.read(threadId, "main", { uptoSeq: 1 })).length > 0) {
      throw new HttpError(409, "ThreadExists", `Thread "${threadId}" already exists`);
    }
    return c.json({ threadId }, 201);
  });

  app.get("/api/threads/:threadId/state", async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const eventId = query(c, "eventId");
    const snapshot = await graph.getState(
      threadId,
      eventId === undefined ? { branchId } : { branchId, eventId },
    );
    if (snapshot.lastEventId === null) throw unknownThread(threadId);
    return c.json({ threadId, branchId, ...snapshot });
  });

  addStateRoute(app, graph, { param, readJson, Id });

  app.get("/api/threads/:threadId/history", async (c) => {
    const threadId = param(c, "threadId");
    const branchId = query(c, "branchId") ?? "main";
    const events = await graph.history(threadId, { branchId });
    if (events.length === 0) throw unknownThread(threadId);
    return c.json({ threadId, branchId, events });
  });

  app.post("/api/threads/:threadId/fork", async (c) => {
    const threadId = param(c, "threadId");
    const body = await readJson(c, ForkBody);
    if (body.branchId !== undefined && (await store.getBranch(threadId, body.branchId))) {
      throw new HttpError(
        409,
        "BranchExists",
        `Thread "${threadId}" already has a branch "${body.branchId}"`,
      );
    }
    const branch = await graph.fork(
      threadId,
      body.branchId === undefined
        ? { eventId: body.eventId }
        : { eventId: body.eventId, branchId: body.branchId },
    );
    return c.json(branch, 201);
  });

  /** The `end` event of a streamed run: the thread's status, interrupts, output and usage. */
  const endOf = async (threadId: string, branchId: string) => {
    const after = await graph.getState(threadId, { branchId });
    return {
      threadId,
      branchId,
      status: after.status,
      interrupts: after.interrupts,
      lastEventId: after.lastEventId,
      // The run's result: the graph's output fields (all of them without an output schema).
      state: pickOutput(after.state, graph.outputFields),
      threadUsage: await usage.thread(threadId, branchId),
    };
  };

  /**
   * Start a run that clients can join: in this process, or queued for the workers (then this
   * server's registry keeps a mirror of it, fed from the queue's stream).
   */
  const begin = async (how: RunStart): Promise<ServerRun> => {
    if (!runQueue) {
      return startServerRun(registry, {
        threadId: how.threadId,
        branchId: how.branchId,
        detached: how.detached,
        messageId: how.messageId,
        ui: how.ui ?? null,
        waitMs: streamStartMs,
        ...(how.mapError ? { mapError: how.mapError } : {}),
        start: (signal, runId) =>
          (how.graph ?? graph).stream(how.input, {
            threadId: how.threadId,
            branchId: how.branchId,
            runId,
            signal,
            modes: how.modes,
            ...how.extras,
            ...(context !== undefined ? { context } : {}),
          }),
        end: () => endOf(how.threadId, how.branchId),
      });
    }
    return startQueuedRun(
      registry,
      runQueue,
      {
        graph: graph.name,
        threadId: how.threadId,
        branchId: how.branchId,
        detached: how.detached,
        messageId: how.messageId,
        input: how.input,
        modes: [...how.modes],
        ...how.extras,
      },
      endOf,
      streamStartMs,
      how.ui ?? null,
    );
  };

  /** A plain (not detached) run's answer when workers run it: waits for its end. */
  const queuedAnswer = async (threadId: string, branchId: string, body: RunBody) => {
    const run = await begin({
      threadId,
      branchId,
      detached: false,
      messageId: null,
      input: inputOf(body),
      modes: ["updates"],
      extras: runExtras(body, undefined),
    });
    while (!run.finished) await run.changed();
    if (run.status === "error" || run.status === "cancelled") throw run.failure;
    const end = (run.since(run.lastEventId - 1) ?? []).at(-1)?.data as Awaited<
      ReturnType<typeof endOf>
    >;
    return {
      runId: run.runId,
      threadId,
      branchId,
      status: run.status === "interrupted" ? "interrupted" : "completed",
      interrupts: end.interrupts,
      state: end.state,
      lastEventId: end.lastEventId,
      // The stored part under the run's own id (a part after a takeover is `<runId>~<n>`).
      usage: await usage.run(threadId, branchId, run.runId),
      threadUsage: end.threadUsage,
    };
  };

  app.post("/api/threads/:threadId/runs", async (c) => {
    const threadId = param(c, "threadId");
    const body = await readJson(c, RunBody);
    if (body.onDisconnect !== undefined) {
      throw new HttpError(
        400,
        "InvalidRequest",
        'onDisconnect: only for POST …/runs/stream; a run that goes on without its client is { "detach": true } here',
      );
    }
    const branchId = body.branchId ?? "main";
    const runGraph = graphForModel(graph, models, body.model);
    if (body.detach) {
      const run = await begin({
        threadId,
        branchId,
        detached: true,
        messageId: null,
        input: inputOf(body),
        modes: body.modes ?? ["updates", "custom"],
        extras: runExtras(body, undefined),
        graph: runGraph,
        mapError: (e) => answerError(e, body.resume !== undefined),
      });
      return c.json(run.info(), 202);
    }
    if (runQueue) return c.json(await queuedAnswer(threadId, branchId, body));
    const release = registry.acquire();
    try {
      const result = await runGraph
        .invoke(inputOf(body), {
          threadId,
          branchId,
          runId: newServerRunId(),
          ...runExtras(body, context),
        })
        .catch((e: unknown) => {
          throw answerError(e, body.resume !== undefined);
        });
      const after = await graph.getState(threadId, { branchId });
      return c.json({
        runId: result.runId,
        threadId,
        branchId,
        status: result.status,
        interrupts: result.interrupts,
        state: result.state,
        lastEventId: after.lastEventId,
        usage: await usage.run(threadId, branchId, result.runId),
        threadUsage: await usage.thread(threadId, branchId),
      });
    } finally {
      release();
    }
  });

  app.post("/api/threads/:threadId/runs/stream", async (c) => {
    const threadId = param(c, "threadId");
    const body = await readJson(c, RunBody);
    if (body.detach !== undefined) {
      throw new HttpError(
        400,
        "InvalidRequest",
        'detach: only for POST …/runs; a streamed run that goes on without its client is { "onDisconnect": "continue" }',
      );
    }
    const branchId = body.branchId ?? "main";
    const detached = body.onDisconnect === "continue";
    const runGraph = graphForModel(graph, models, body.model);
    const run = await begin({
      threadId,
      branchId,
      detached,
      messageId: null,
      input: inputOf(body),
      modes: body.modes ?? ["updates", "custom"],
      extras: runExtras(body, undefined),
      graph: runGraph,
      mapError: (e) => answerError(e, body.resume !== undefined),
    });
    c.header("X-Nodestep-Run-Id", run.runId);
    // A run that lives as long as its request has no idle timeout: it ends with the request.
    return joinStream(c, run, 0, {
      heartbeatMs: join.heartbeatMs,
      idleMs: detached ? join.idleMs : 0,
      ...(detached ? {} : { onClientGone: () => run.controller.abort() }),
    });
  });

  addRunRoutes(app, registry, {
    param,
    query,
    readJson,
    join,
    cancelWaitMs: 5_000,
    runQueue,
    end: endOf,
  });
  addUIStreamRoutes(app, graph, {
    param,
    query,
    readJson,
    context,
    registry,
    runQueue,
    end: endOf,
    startRun: begin,
  });

  registerRuns(app, registry, runQueue !== null);
  return app;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

function errorBody(type: string, message: string): ErrorBody {
  return { error: { type, message } };
}

function unknownThread(threadId: string): HttpError {
  return new HttpError(404, "UnknownThread", `Thread "${threadId}" has no events`);
}

/** `"127.0.0.1:8080"` → `"127.0.0.1"`, `"[::1]:80"` → `"[::1]"`; `null` when absent. */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

function param(c: Context, name: string): string {
  const value = c.req.param(name) ?? "";
  const checked = Id.safeParse(value);
  if (!checked.success) {
    throw new HttpError(400, "InvalidRequest", `${name}: ${checked.error.issues[0]?.message}`);
  }
  return value;
}

/** A query parameter that must be an integer ≥ `min`, or `undefined` when absent. */
function count(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]{1,15}$/.test(value) || n < min) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `${name} must be an integer ≥ ${min}, got "${value}"`,
    );
  }
  return n;
}

function query(c: Context, name: string): string | undefined {
  const value = c.req.query(name);
  if (value === undefined) return undefined;
  if (value === "") throw new HttpError(400, "InvalidRequest", `${name} must not be empty`);
  return value;
}

/** Parse a JSON request body against a schema: 415, 400 InvalidJson or 400 InvalidRequest. */
async function readJson<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(
      415,
      "UnsupportedMediaType",
      "Send the request body as JSON, with Content-Type: application/json",
    );
  }
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new HttpError(
        400,
        "InvalidJson",
        `The request body is not JSON: ${(e as Error).message}`,
      );
    }
  }
  // Checked before the schema: a schema would drop prototype keys silently, and walk deep
  // data recursively (a stack overflow).
  if (tooDeep(value, MAX_JSON_DEPTH) !== null) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `The request body is nested deeper than ${MAX_JSON_DEPTH} levels (the limit)`,
    );
  }
  const key = prototypeKey(value);
  if (key !== null) {
    throw new HttpError(
      400,
      "InvalidRequest",
      `${key}: the keys __proto__, constructor and prototype are not accepted`,
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`,
    );
    throw new HttpError(400, "InvalidRequest", problems.join("; "));
  }
  return parsed.data;
}

function inputOf(body: RunBody): Record<string, unknown> | null {
  if (body.message !== undefined) return { messages: [HumanMessage({ content: body.message })] };
  return body.input ?? null;
}

/** How a joinable run is started (`begin` in {@link createServer}). */
interface RunStart {
  threadId: string;
  branchId: string;
  detached: boolean;
  messageId: string | null;
  input: Record<string, unknown> | null;
  modes: readonly StreamMode[];
  extras: {
    resume?: Record<string, JsonValue>;
    onBusy?: RunBody["onBusy"];
    onBusyTimeoutMs?: number;
  };
  /** A UI stream run's replay needs (see `UIRunReplay`). */
  ui?: UIRunReplay | null;
  /** The graph of the run's model choice (`ServerOptions.models`); default the server's. On workers, the workers' graph runs. */
  graph?: ServedGraph;
  /** Maps an early error of the run (a refused answer: `answerError`). */
  mapError?: (e: unknown) => unknown;
}

function runExtras(body: RunBody, context: unknown) {
  return {
    ...(body.resume !== undefined ? { resume: body.resume } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(body.onBusy !== undefined ? { onBusy: body.onBusy } : {}),
    ...(body.onBusyTimeoutMs !== undefined ? { onBusyTimeoutMs: body.onBusyTimeoutMs } : {}),
    ...(body.interruptBefore !== undefined ? { interruptBefore: body.interruptBefore } : {}),
    ...(body.interruptAfter !== undefined ? { interruptAfter: body.interruptAfter } : {}),
  };
}
