/**
 * `nodestep serve`: the HTTP API and the studio over a graph, until Ctrl-C or SIGTERM.
 *
 * @module
 */
import type { Command, Option } from "commander";
import {
  createServer,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_PORT,
  LOOPBACK_HOSTS,
  listen,
  stopRuns,
} from "../server/index.js";
import { readPrices } from "./args.js";
import { type LoadedGraph, RunFailed, UsageError } from "./load.js";
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
  queue?: string;
  queuePrefix: string;
  queueName: string;
  drainMs: string;
}

/** Add `serve` to the program. */
export function addServeCommand(program: Command, host: ServeCommandHost): void {
  const { io, out, err, withGraph, graphTarget, storeOption, modelOption } = host;
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
      await withGraph(graphTarget(target), o, async (loaded) => {
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
        const app = createServer({
          runQueue,
          graph: loaded.graph,
          apiKey,
          context: loaded.context,
          corsOrigins: o.corsOrigin ?? [],
          allowedHosts: loopback ? LOOPBACK_HOSTS : null,
          prices,
          maxConcurrentRuns: maxRuns,
        });
        const server = await listen(app, { port, host: o.host });
        out(`nodestep studio for graph "${loaded.graph.name}": ${server.url}/`);
        out(
          `API: ${server.url}/api · store: ${loaded.storeLabel}${apiKey ? " · API key required" : ""}${connection ? ` · runs queued on ${connection.host}:${connection.port} (${o.queueName})` : ""}`,
        );
        if (!loopback && !apiKey) err(`nodestep: warning: serving on ${o.host} without an API key`);
        io.onListening?.(server.url);
        await new Promise<void>((resolve) => {
          if (!io.signal || io.signal.aborted) return resolve();
          io.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        const stopped = await stopRuns(app, { drainMs });
        if (stopped.cancelled > 0)
          err(`nodestep: cancelled ${stopped.cancelled} run(s) still going`);
        await server.close();
        await runQueue?.close();
        out("stopped");
      });
    });
}
