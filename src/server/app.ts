/**
 * `createServer`: the HTTP API of `nodestep serve`, a Hono app over one graph and its store.
 *
 * Stateless between requests: everything a request needs is read from the store, so several
 * servers can share one store (PostgreSQL) behind a load balancer.
 *
 * @module
 */
import { Hono } from "hono";
import { checkPrices, type PriceTable } from "../middleware/prices.js";
import type { StateStore } from "../stores/types.js";
import { defaultStudioDir } from "../studio/assets.js";
import { errorAnswer } from "./errors.js";
import { describeGraph } from "./graph-view.js";
import { addGuards, errorBody } from "./guards.js";
import { addHistoryRoutes } from "./history-route.js";
import { addMetricsRoute } from "./metrics-route.js";
import { addModelsRoute, checkModelChoices, type ModelChoices } from "./model-choice.js";
import { onlyQuery, param, query, readJson } from "./request.js";
import { Id } from "./request-schemas.js";
import type { RunQueue } from "./run-queue.js";
import { RunRegistry } from "./run-registry.js";
import { addRunRoutes } from "./run-routes.js";
import { addRunStartRoutes, createRunStarter } from "./run-start-routes.js";
import { addStateRoute } from "./state-route.js";
import { registerRuns } from "./stop-runs.js";
import { addStudioRoutes } from "./studio-routes.js";
import { addThreadListRoute } from "./thread-list-route.js";
import { addThreadRoutes } from "./thread-routes.js";
import { addToolsRoute } from "./tools-route.js";
import type { ServedGraph } from "./types.js";
import { addUIStreamRoutes } from "./ui-stream-route.js";
import { addUsageRoute } from "./usage-route.js";

export { LOOPBACK_HOSTS } from "./guards.js";

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
  /** Largest request body, in bytes (an integer ≥ 1); default 1 MiB (413 beyond). */
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
 *   bound (`maxConcurrentRuns`, `runBufferEvents`, `maxBodyBytes`, `streamStartMs`, …) is not
 *   an integer in its range.
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
  const streamStartMs = positive("streamStartMs", options.streamStartMs, 1_000, 0);
  const maxBodyBytes = positive("maxBodyBytes", options.maxBodyBytes, 1024 * 1024, 1);
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
  // Hono hands only Errors to onError and lets anything else thrown (a graph's checkInput may
  // throw a string) end the answer with an empty 500: give it the same answer as an Error.
  app.use(async (c, next) => {
    try {
      await next();
    } catch (e) {
      if (e instanceof Error) throw e;
      const { status, body } = errorAnswer(e);
      return c.json(body, status as 500);
    }
  });
  app.notFound((c) =>
    c.json(errorBody("NotFound", `No route ${c.req.method} ${c.req.path}`), 404 as const),
  );
  addGuards(app, { ...options, maxBodyBytes });

  // ---------------------------------------------------------------- studio
  addStudioRoutes(app, graph.name, options.studioDir ?? defaultStudioDir());
  app.get("/health", onlyQuery(), (c) => c.json({ status: "ok" }));

  // ---------------------------------------------------------------- API
  app.get("/api", onlyQuery(), (c) => c.json({ graph: graph.name, routes: API_ROUTES }));
  app.get("/api/graph", onlyQuery(), (c) => c.json(view));
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
  addThreadRoutes(app, graph, store);
  addStateRoute(app, graph, { param, readJson, Id });

  const deps = { graph, registry, runQueue, context, streamStartMs, usage };
  const starter = createRunStarter(deps);
  addRunStartRoutes(app, { ...deps, starter, models, join });
  addRunRoutes(app, registry, {
    param,
    query,
    readJson,
    join,
    cancelWaitMs: 5_000,
    runQueue,
    end: starter.endOf,
  });
  addUIStreamRoutes(app, graph, {
    param,
    query,
    readJson,
    context,
    registry,
    runQueue,
    end: starter.endOf,
    startRun: starter.begin,
  });

  registerRuns(app, registry, runQueue !== null);
  return app;
}
