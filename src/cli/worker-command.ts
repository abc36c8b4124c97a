/**
 * `nodestep worker`: run the runs that `nodestep serve --queue` processes queue on BullMQ,
 * until Ctrl-C or SIGTERM (docs/workers.md).
 *
 * @module
 */
import { type Command, Option } from "commander";
import type { RedisOptions } from "ioredis";
import { type LoadedGraph, type OpenStore, RunFailed, UsageError } from "./load.js";

/** What `worker` needs from the CLI around it. */
export interface WorkerCommandHost {
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
  /** Load the target again on `store` with the chat model `model` (`--models`), as `serve` does. */
  reloadGraph: (
    target: string,
    o: { store?: string; model?: string },
    store: OpenStore,
    version: number,
    model?: string,
  ) => Promise<LoadedGraph>;
}

interface WorkerOpts {
  store?: string;
  model?: string;
  models?: string;
  redis?: string;
  queuePrefix?: string;
  /** The old name of `--queue-prefix` (hidden). */
  prefix?: string;
  queueName: string;
  concurrency: string;
  lockMs: string;
  stalledMs: string;
  drainMs: string;
  maxStalled: string;
}

/**
 * ioredis options from a `redis://[user:password@]host[:port][/db]` URL (`rediss://` for
 * TLS). @throws UsageError for anything else, naming `flag`.
 */
export function redisOptionsOf(url: string, flag: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${flag} must be a redis:// URL, got "${url}"`);
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") {
    throw new UsageError(`${flag} must be a redis:// or rediss:// URL, got "${url}"`);
  }
  const db = u.pathname.replace(/^\//, "");
  if (db !== "" && !/^[0-9]{1,2}$/.test(db)) {
    throw new UsageError(`${flag}: the path of a Redis URL is a database number, got "/${db}"`);
  }
  const options: RedisOptions = {
    host: u.hostname || "127.0.0.1",
    port: u.port === "" ? 6379 : Number(u.port),
  };
  if (db !== "") options.db = Number(db);
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (u.protocol === "rediss:") options.tls = {};
  return options;
}

/** `value` as an integer ≥ `min`. @throws UsageError naming `flag`. */
export function intOption(value: string, flag: string, min: number): number {
  const n = Number(value);
  if (!/^[0-9]{1,9}$/.test(value) || n < min) {
    throw new UsageError(`${flag} must be an integer ≥ ${min}, got "${value}"`);
  }
  return n;
}

/** Add `worker` to the program. */
export function addWorkerCommand(program: Command, host: WorkerCommandHost): void {
  const { io, out, withGraph, graphTarget, storeOption, modelOption, reloadGraph } = host;
  program
    .command("worker")
    .description("run the runs that nodestep serve --queue puts on BullMQ (docs/workers.md)")
    .argument("[target]", "the graph: <module>#<export>, the servers' (default $NODESTEP_GRAPH)")
    .option("--redis <url>", "Redis of the queue: redis://host:port[/db] (default $NODESTEP_REDIS)")
    .option(
      "--queue-prefix <prefix>",
      'BullMQ key prefix, the servers\' too (serve --queue-prefix) (default: "bull")',
    )
    // The flag's first name, kept working: `serve` has always called it --queue-prefix.
    .addOption(new Option("--prefix <prefix>").hideHelp())
    .option("--queue-name <name>", "BullMQ queue name, the servers' too", "nodestep-runs")
    .option("--concurrency <n>", "runs this worker runs at once", "4")
    .option(
      "--lock-ms <n>",
      "a run's lock without renewal, in ms: a dead worker's runs are taken over after it",
      "30000",
    )
    .option("--stalled-ms <n>", "how often lapsed locks are looked for, in ms", "30000")
    .option("--max-stalled <n>", "how many times a run may be taken over before it fails", "1")
    .option(
      "--drain-ms <n>",
      "on Ctrl-C, how long to wait for running runs before handing them back to the queue, in ms",
      "10000",
    )
    .addOption(storeOption())
    .addOption(modelOption())
    .option(
      "--models <specs>",
      "the other chat models runs may ask for, the servers' (serve --models): comma-separated provider:model",
    )
    .action(async (target: string | undefined, o: WorkerOpts) => {
      const url = o.redis ?? io.env.NODESTEP_REDIS;
      if (!url)
        throw new UsageError(
          "give the queue's Redis: --redis redis://host:port (or set NODESTEP_REDIS)",
        );
      const connection = redisOptionsOf(url, "--redis");
      if (o.queuePrefix !== undefined && o.prefix !== undefined && o.queuePrefix !== o.prefix) {
        throw new UsageError(
          `--queue-prefix "${o.queuePrefix}" and --prefix "${o.prefix}" (its old name) differ: give one`,
        );
      }
      const prefix = o.queuePrefix ?? o.prefix ?? "bull";
      const concurrency = intOption(o.concurrency, "--concurrency", 1);
      const lockDurationMs = intOption(o.lockMs, "--lock-ms", 100);
      const stalledIntervalMs = intOption(o.stalledMs, "--stalled-ms", 100);
      const drainMs = intOption(o.drainMs, "--drain-ms", 0);
      const maxStalledCount = intOption(o.maxStalled, "--max-stalled", 0);
      const t = graphTarget(target);
      const currentModel = o.model ?? io.env.NODESTEP_MODEL ?? null;
      const extraModels = (o.models ?? "")
        .split(",")
        .map((m) => m.trim())
        .filter((m) => m !== "" && m !== currentModel);
      await withGraph(t, o, async (loaded) => {
        const { runRunWorker } = await import("../integrations/bullmq/run-worker.js");
        // One graph per model of --models, built by the factory on the same store (as serve).
        const choices: LoadedGraph[] = [];
        const store = { store: loaded.store, label: loaded.storeLabel };
        for (const spec of extraModels) choices.push(await reloadGraph(t, o, store, 0, spec));
        const worker = await runRunWorker({
          onError: (e) => host.err(`nodestep worker: ${e.message}`),
          connection,
          prefix,
          queueName: o.queueName,
          graph: loaded.graph,
          ...(currentModel === null && extraModels.length === 0
            ? {}
            : {
                models: {
                  current: currentModel,
                  graphs: Object.fromEntries(extraModels.map((m, i) => [m, choices[i]!.graph])),
                },
              }),
          context: loaded.context,
          concurrency,
          lockDurationMs,
          stalledIntervalMs,
          maxStalledCount,
        }).catch((e: Error) => {
          if (e.message.startsWith("runRunWorker: cannot reach Redis"))
            throw new RunFailed(`--redis: ${e.message.slice("runRunWorker: ".length)}`);
          throw e;
        });
        out(
          `nodestep worker for graph "${loaded.graph.name}": queue "${o.queueName}" (prefix "${prefix}") on ${connection.host}:${connection.port} · store: ${loaded.storeLabel} · ${concurrency} at once${extraModels.length ? ` · models: ${[...(currentModel ? [currentModel] : []), ...extraModels].join(", ")}` : ""}`,
        );
        io.onListening?.(`${connection.host}:${connection.port}`);
        await new Promise<void>((resolve) => {
          if (!io.signal || io.signal.aborted) return resolve();
          io.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        await worker.close(drainMs);
        for (const l of choices) await l.close().catch(() => {});
        out("stopped");
      });
    });
}
