/**
 * `nodestep serve`: the HTTP API and the studio over a graph, until Ctrl-C or SIGTERM.
 *
 * @module
 */
import { resolve } from "node:path";
import type { Command, Option } from "commander";
import { Hono } from "hono";
import { missingKeyVariable } from "../integrations/models/credentials.js";
import {
  createServer,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_PORT,
  LOOPBACK_HOSTS,
  listen,
  stopRuns,
} from "../server/index.js";
import { noWorkerWarning } from "../server/run-queue.js";
import { readPrices } from "./args.js";
import { type LoadedGraph, type OpenStore, parseTarget, RunFailed, UsageError } from "./load.js";
import { watchFile } from "./watch-file.js";
import { intOption, redisOptionsOf } from "./worker-command.js";

/** What `serve` needs from the CLI around it. */
export interface ServeCommandHost {
  io: {
    env: Record<string, string | undefined>;
    signal?: AbortSignal;
    onListening?: (url: string) => void;
  };
  out: (line?: string) => void;
  err: (line: string) => void;
  withGraph: <T>(
    target: string,
    o: { store?: string; model?: string },
    fn: (loaded: LoadedGraph) => Promise<T>,
  ) => Promise<T>;
  graphTarget: (given: string | undefined) => string;
  storeOption: () => Option;
  modelOption: () => Option;
  /**
   * Load the target again on `store` (`--watch`, `--models`), the module imported anew when
   * `version` > 0, with the chat model `model` when given (else `--model`'s).
   */
  reloadGraph: (
    target: string,
    o: { store?: string; model?: string },
    store: OpenStore,
    version: number,
    model?: string,
  ) => Promise<LoadedGraph>;
}

interface ServeOpts {
  store?: string;
  model?: string;
  port: string;
  host: string;
  apiKey?: string;
  corsOrigin?: string[];
  prices?: string;
  maxRuns: string;
  watch?: boolean;
  models?: string;
  queue?: string;
  queuePrefix: string;
  queueName: string;
  drainMs: string;
}

/** Add `serve` to the program. */
export function addServeCommand(program: Command, host: ServeCommandHost): void {
  const { io, out, err, withGraph, graphTarget, storeOption, modelOption, reloadGraph } = host;
  program
    .command("serve")
    .description("serve the HTTP API and the studio over a graph")
    .argument("[target]", "the graph: <module>#<export> (default $NODESTEP_GRAPH)")
    .option("-p, --port <n>", `port (0 picks a free one)`, String(DEFAULT_PORT))
    .option(
      "-H, --host <host>",
      "address to bind; other than loopback, set an API key",
      "127.0.0.1",
    )
    .option("--api-key <key>", "require Authorization: Bearer <key> (default $NODESTEP_API_KEY)")
    .option("--cors-origin <origin...>", "browser origins allowed to call the API (default none)")
    .option(
      "--prices <file>",
      "a JSON price table (USD per million tokens) for the usage routes' cost",
    )
    .option(
      "--max-runs <n>",
      "runs going on at once; one more answers 429",
      String(DEFAULT_MAX_CONCURRENT_RUNS),
    )
    .option(
      "--models <specs>",
      "more chat models the studio offers for a run, comma-separated provider:model (the graph factory builds one graph per model)",
    )
    .option(
      "--watch",
      "load the graph module again when its file changes (the server and its threads stay)",
    )
    .option(
      "--queue <url>",
      "queue runs on BullMQ at this Redis (redis://host:port[/db]) for nodestep worker processes, instead of running them here",
    )
    .option("--queue-prefix <prefix>", "BullMQ key prefix of --queue, the workers' too", "bull")
    .option(
      "--queue-name <name>",
      "BullMQ queue name of --queue, the workers' too",
      "nodestep-runs",
    )
    .option(
      "--drain-ms <n>",
      "on Ctrl-C, how long to wait for the runs going on here before cancelling them, in ms",
      "10000",
    )
    .addOption(storeOption())
    .addOption(modelOption())
    .action(async (target: string | undefined, o: ServeOpts) => {
      const connection = o.queue === undefined ? null : redisOptionsOf(o.queue, "--queue");
      const drainMs = intOption(o.drainMs, "--drain-ms", 0);
      const prices = o.prices === undefined ? null : readPrices(o.prices);
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UsageError(`--port must be a port number, got "${o.port}"`);
      }
      const maxRuns = Number(o.maxRuns);
      if (!/^[0-9]+$/.test(o.maxRuns) || maxRuns < 1) {
        throw new UsageError(`--max-runs must be an integer ≥ 1, got "${o.maxRuns}"`);
      }
      const apiKey = o.apiKey ?? io.env.NODESTEP_API_KEY ?? null;
      const loopback = LOOPBACK_HOSTS.includes(o.host) || o.host === "::1";
      const t = graphTarget(target);
      const currentModel = o.model ?? io.env.NODESTEP_MODEL ?? null;
      const extraModels = (o.models ?? "")
        .split(",")
        .map((m) => m.trim())
        .filter((m) => m !== "" && m !== currentModel);
      await withGraph(t, o, async (loaded) => {
        if (connection && loaded.store.constructor.name === "MemoryStateStore") {
          throw new UsageError(
            "--queue: the workers run on the store too, and a memory store is this process's only; give --store postgres://…",
          );
        }
        const runQueue = connection
          ? new (await import("../integrations/bullmq/run-queue.js")).BullMQRunQueue({
              connection,
              prefix: o.queuePrefix,
              queueName: o.queueName,
            })
          : null;
        try {
          await runQueue?.ready();
        } catch (e) {
          await runQueue?.close();
          throw new RunFailed(`--queue: ${(e as Error).message.replace(/^BullMQRunQueue: /, "")}`);
        }
        // One graph per model of --models, built by the factory on the same store.
        let choices: LoadedGraph[] = [];
        const loadChoices = async (version: number) => {
          const made: LoadedGraph[] = [];
          for (const spec of extraModels) {
            made.push(
              await reloadGraph(
                t,
                o,
                { store: loaded.store, label: loaded.storeLabel },
                version,
                spec,
              ),
            );
          }
          return made;
        };
        const closeAll = async (list: LoadedGraph[]) => {
          for (const l of list) await l.close().catch(() => {});
        };
        choices = await loadChoices(0);
        const make = (l: LoadedGraph) =>
          createServer({
            runQueue,
            models:
              currentModel === null && extraModels.length === 0
                ? null
                : {
                    current: currentModel,
                    graphs: Object.fromEntries(extraModels.map((m, i) => [m, choices[i]!.graph])),
                  },
            graph: l.graph,
            apiKey,
            context: l.context,
            corsOrigins: o.corsOrigin ?? [],
            allowedHosts: loopback ? LOOPBACK_HOSTS : null,
            prices,
            maxConcurrentRuns: maxRuns,
          });
        let app = make(loaded);
        // With --watch, requests go to the app of the graph loaded last.
        const front = new Hono();
        front.all("*", (c) => app.fetch(c.req.raw));
        const server = await listen(o.watch ? front : app, { port, host: o.host }).catch(
          async (e: unknown) => {
            await runQueue?.close();
            await closeAll(choices);
            if ((e as { code?: unknown } | null)?.code === "EADDRINUSE") {
              throw new RunFailed(
                `port ${port} on ${o.host} is in use; pass --port <n> (or --port 0 for a free one)`,
              );
            }
            throw e;
          },
        );
        let current = loaded;
        let stopWatching = () => {};
        if (o.watch) {
          const file = parseTarget(t).file;
          stopWatching = watchFile(resolve(file), async (version) => {
            try {
              const next = await reloadGraph(
                t,
                o,
                { store: loaded.store, label: loaded.storeLabel },
                version,
              );
              const before = choices;
              choices = await loadChoices(version);
              app = make(next);
              await closeAll(before);
              if (current !== loaded) await current.close().catch(() => {});
              current = next;
              out(
                `reloaded ${file}: graph "${next.graph.name}" (${next.graph.compiled.nodes.size} nodes)`,
              );
            } catch (e) {
              err(
                `nodestep: reloading ${file} failed, still serving the graph loaded before: ${(e as Error).message}`,
              );
            }
          });
        }
        out(`nodestep studio for graph "${loaded.graph.name}": ${server.url}/`);
        if (currentModel !== null || extraModels.length > 0) {
          out(
            `model: ${currentModel ?? "the graph's own"}${extraModels.length ? ` · the studio also offers ${extraModels.join(", ")}` : ""}`,
          );
        }
        out(
          `API: ${server.url}/api · store: ${loaded.storeLabel}${apiKey ? " · API key required" : ""}${connection ? ` · runs queued on ${connection.host}:${connection.port}, queue "${o.queueName}" (prefix "${o.queuePrefix}")` : ""}`,
        );
        if (!loopback && !apiKey) err(`nodestep: warning: serving on ${o.host} without an API key`);
        for (const line of missingKeys([currentModel, ...extraModels], io.env)) err(line);
        const noWorker = await noWorkerWarning(runQueue);
        if (noWorker !== null) err(`nodestep: warning: ${noWorker}`);
        io.onListening?.(server.url);
        await new Promise<void>((resolve) => {
          if (!io.signal || io.signal.aborted) return resolve();
          io.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        stopWatching();
        const stopped = await stopRuns(app, { drainMs });
        if (stopped.cancelled > 0)
          err(`nodestep: cancelled ${stopped.cancelled} run(s) still going`);
        await server.close();
        await runQueue?.close();
        await closeAll(choices);
        if (current !== loaded) await current.close().catch(() => {});
        out("stopped");
      });
    });
}

/**
 * One warning line per API key variable that models of `specs` need and `env` lacks, naming
 * the variable and the models (their runs would fail at the first model call).
 */
function missingKeys(
  specs: readonly (string | null)[],
  env: Record<string, string | undefined>,
): string[] {
  const byVariable = new Map<string, string[]>();
  for (const spec of specs) {
    if (spec === null) continue;
    let variable: string | null = null;
    try {
      variable = missingKeyVariable(spec, env);
    } catch {
      // A spec that is not provider:model failed to load before this.
    }
    if (variable !== null) byVariable.set(variable, [...(byVariable.get(variable) ?? []), spec]);
  }
  return [...byVariable].map(
    ([variable, models]) =>
      `nodestep: warning: ${variable} is not set: runs on ${models.join(", ")} will fail at their first model call`,
  );
}
