/**
 * Starting runs: `POST /api/threads/:threadId/runs` (plain or detached) and `POST …/runs/stream`
 * (server-sent events), and the run starter they share with the UI stream routes: a run
 * that clients can join, in this process or queued for the workers.
 *
 * @module
 */
import type { Hono } from "hono";
import type { StreamMode } from "../graph/context.js";
import type { JsonValue } from "../json/index.js";
import { runEndData } from "../middleware/run-end-data.js";
import { answerError } from "./answer-errors.js";
import { HttpError } from "./errors.js";
import { graphForModel, type ModelChoices } from "./model-choice.js";
import { onlyQuery, param, readJson } from "./request.js";
import { inputOf, RunBody, runExtras } from "./request-schemas.js";
import { type RunQueue, startQueuedRun, withQueueWarning } from "./run-queue.js";
import type { RunRegistry, ServerRun, UIRunReplay } from "./run-registry.js";
import { type JoinOptions, joinStream, startServerRun } from "./run-stream.js";
import type { ServedGraph } from "./types.js";
import type { UsageAnswers } from "./usage-route.js";

/** How a joinable run is started (`begin` of {@link createRunStarter}). */
export interface RunStart {
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
  /** The name of that model choice, absent for the server's own model: a queued run carries it to the workers. */
  model?: string;
  /** Maps an early error of the run (a refused answer: `answerError`). */
  mapError?: (e: unknown) => unknown;
}

/**
 * `{ model }` when the run chose another graph than the served one by `model`, else `{}`: the
 * model name a queued run carries.
 */
function chosenModel(
  served: ServedGraph,
  runGraph: ServedGraph,
  model: string | undefined,
): { model?: string } {
  return model === undefined || runGraph === served ? {} : { model };
}

/** What starting runs needs from the server. */
export interface RunStartDeps {
  graph: ServedGraph;
  registry: RunRegistry;
  /** Where the workers' runs are (`ServerOptions.runQueue`), or `null`: in process. */
  runQueue: RunQueue | null;
  /** The run `context` (`ServerOptions.context`). */
  context: unknown;
  /** How long a streamed run may take to its first event, in ms. */
  streamStartMs: number;
  usage: UsageAnswers;
}

/** The run starter of {@link createRunStarter}. */
export type RunStarter = ReturnType<typeof createRunStarter>;

/** `endOf` (a run's `end` data, read from the store), `begin` (start a joinable run) and `plainAnswer`. */
export function createRunStarter(deps: RunStartDeps) {
  const { graph, registry, runQueue, context, streamStartMs, usage } = deps;

  /** The `end` event of a streamed run: the thread's status, interrupts, output and usage. */
  const endOf = (threadId: string, branchId: string) =>
    runEndData(graph, threadId, branchId, usage);

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
        ...(how.model !== undefined ? { model: how.model } : {}),
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

  /**
   * A plain (not detached) run's answer: the run is started as a joinable run (listed by
   * `GET …/runs` as `"running"` while it goes on, then with its end status), in this process
   * or on the workers, and its answer waits for its end. Its failure is thrown as `mapError`
   * maps it.
   */
  const plainAnswer = async (
    threadId: string,
    branchId: string,
    body: RunBody,
    how: { graph?: ServedGraph; model?: string; mapError?: (e: unknown) => unknown } = {},
  ) => {
    const run = await begin({
      threadId,
      branchId,
      detached: false,
      messageId: null,
      input: inputOf(body),
      modes: ["updates"],
      extras: runExtras(body, undefined),
      ...how,
    });
    while (!run.finished) await run.changed();
    if (run.status === "error" || run.status === "cancelled") {
      throw how.mapError ? how.mapError(run.failure) : run.failure;
    }
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

  return { endOf, begin, plainAnswer };
}

/**
 * Add `POST /api/threads/:threadId/runs` (the run's answer with its `usage` and the branch's
 * `threadUsage`; `detach: true` answers 202 the run's info at once) and `POST …/runs/stream`
 * (server-sent events; `onDisconnect: "continue"` keeps the run going without its client).
 */
export function addRunStartRoutes(
  app: Hono,
  deps: RunStartDeps & {
    starter: RunStarter;
    models: ModelChoices | null;
    join: Omit<JoinOptions, "onClientGone">;
  },
): void {
  const { graph, runQueue, starter, models, join } = deps;
  const { begin, plainAnswer } = starter;

  app.post("/api/threads/:threadId/runs", onlyQuery(), async (c) => {
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
        ...chosenModel(graph, runGraph, body.model),
        mapError: (e) => answerError(e, body.resume !== undefined),
      });
      return c.json(await withQueueWarning(run.info(), runQueue), 202);
    }
    return c.json(
      await plainAnswer(threadId, branchId, body, {
        graph: runGraph,
        ...chosenModel(graph, runGraph, body.model),
        mapError: (e) => answerError(e, body.resume !== undefined),
      }),
    );
  });

  app.post("/api/threads/:threadId/runs/stream", onlyQuery(), async (c) => {
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
      ...chosenModel(graph, runGraph, body.model),
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
}
