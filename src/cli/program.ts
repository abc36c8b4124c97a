/**
 * The `nodestep` command line: run a graph and watch it, list threads, read a thread's
 * history, answer interrupts, fork, and serve the HTTP API and studio.
 *
 * Exit codes: 0 done; 1 the run (or the store) failed; 2 usage error; 3 the run paused for
 * input (answer with `nodestep resume`); 130 interrupted by Ctrl-C. See docs/cli.md.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { classNames } from "../server/errors.js";
import {
  DEFAULT_STORE,
  type LoadedGraph,
  loadGraph,
  type OpenStore,
  openStore,
  RunFailed,
  UsageError,
} from "./load.js";
import { addMemoryCommands } from "./memory-commands.js";
import { addRunCommands } from "./run-commands.js";
import { addServeCommand } from "./serve-command.js";
import { addThreadCommands } from "./thread-commands.js";
import { addWorkerCommand } from "./worker-command.js";

/** Exit codes of the `nodestep` command. */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  interrupted: 3,
  cancelled: 130,
} as const;

/**
 * The version in the package.json of nodestep found first above `from` (this module's URL: a
 * file of src/cli in a checkout, of dist/ or dist/chunks/ in the built package, which the
 * bundler lays out at other depths).
 * @throws Error when no package.json named "nodestep" is found up to the file system's root.
 */
function packageVersion(from: string): string {
  let dir = new URL(".", from);
  for (;;) {
    const file = new URL("package.json", dir);
    let text: string | undefined;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      // No package.json in this directory: look further up.
    }
    if (text !== undefined) {
      const pkg = JSON.parse(text) as { name?: unknown; version?: unknown };
      if (pkg.name === "nodestep" && typeof pkg.version === "string") return pkg.version;
    }
    const up = new URL("..", dir);
    if (up.href === dir.href)
      throw new Error(`nodestep: no package.json of nodestep above ${from}`);
    dir = up;
  }
}

/** The installed package's version (`nodestep --version`), from its package.json. */
export const VERSION: string = packageVersion(import.meta.url);

/** Where the CLI writes and what it reads; tests give their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Fires on Ctrl-C; a run in progress is cancelled. */
  signal?: AbortSignal;
  /** stdout and stderr are terminals: `run` and `resume` show a progress line on stderr. */
  tty?: boolean;
  /** Called by `serve` once it listens, with the server's URL; `serve` then waits for `signal`. */
  onListening?: (url: string) => void;
}

interface StoreOpts {
  model?: string;
  store?: string;
}

/**
 * Run the CLI on `argv` (the arguments after `nodestep`) and resolve with its exit code.
 * Never throws, never calls `process.exit`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = (line = "") => io.stdout(`${line}\n`);
  const err = (line: string) => io.stderr(`${line}\n`);
  let code: number = ExitCode.ok;
  const storeSpec = (o: StoreOpts) => o.store ?? io.env.NODESTEP_STORE ?? DEFAULT_STORE;
  const storeExplicit = (o: StoreOpts) =>
    o.store !== undefined || io.env.NODESTEP_STORE !== undefined;
  const graphTarget = (given: string | undefined): string => {
    const target = given ?? io.env.NODESTEP_GRAPH;
    if (!target) {
      throw new UsageError(
        "name the graph: <module>#<export> (or --graph for resume, or set NODESTEP_GRAPH)",
      );
    }
    return target;
  };
  const withGraph = async <T>(
    target: string,
    o: StoreOpts,
    fn: (loaded: LoadedGraph) => Promise<T>,
    check?: (graph: LoadedGraph["graph"]) => void,
  ): Promise<T> => {
    const loaded = await loadGraph(
      target,
      storeSpec(o),
      storeExplicit(o),
      { spec: o.model ?? io.env.NODESTEP_MODEL, explicit: o.model !== undefined },
      { check },
    );
    try {
      return await fn(loaded);
    } finally {
      await loaded.close().catch(() => {});
    }
  };
  const withStore = async <T>(o: StoreOpts, fn: (store: LoadedGraph["store"]) => Promise<T>) => {
    const { store } = await openStore(storeSpec(o));
    try {
      return await fn(store);
    } finally {
      await store.close().catch(() => {});
    }
  };

  const program = new Command("nodestep")
    .description("Run, inspect and serve nodestep graphs.")
    .version(VERSION, "-V, --version", "print the version of nodestep")
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // commander's own errors (unknown command or option, a missing argument) start with
      // "error: "; they say "nodestep: " as the CLI's other errors do.
      outputError: (text, write) => write(text.replace(/^error: /, "nodestep: ")),
    })
    .showHelpAfterError("(run nodestep --help for usage)")
    .showSuggestionAfterError(true);
  const storeOption = () =>
    new Option(
      "--store <spec>",
      `thread store: memory, sqlite:FILE or postgres://… (default $NODESTEP_STORE or ${DEFAULT_STORE})`,
    );
  const modelOption = () =>
    new Option(
      "--model <provider:model>",
      "chat model given to the graph factory as { chat } (default $NODESTEP_MODEL): openai:…, anthropic:…, ollama:… or an AI SDK provider (google:…)",
    );

  addRunCommands(program, {
    io,
    withGraph,
    graphTarget,
    storeOption,
    modelOption,
    setCode: (c) => {
      code = c;
    },
  });
  addThreadCommands(program, { out, withStore, storeSpec, storeOption });

  const reloadGraph = (
    target: string,
    o: StoreOpts,
    store: OpenStore,
    version: number,
    model?: string,
  ) =>
    loadGraph(
      target,
      storeSpec(o),
      storeExplicit(o),
      {
        spec: model ?? o.model ?? io.env.NODESTEP_MODEL,
        explicit: model !== undefined || o.model !== undefined,
      },
      { store, version },
    );
  addServeCommand(program, {
    io,
    out,
    err,
    withGraph,
    graphTarget,
    storeOption,
    modelOption,
    reloadGraph,
  });
  addWorkerCommand(program, {
    io,
    out,
    err,
    withGraph,
    graphTarget,
    storeOption,
    modelOption,
    reloadGraph,
  });
  addMemoryCommands(program, { out, storeSpec, storeOption });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === "commander.helpDisplayed" ||
        e.code === "commander.version" ||
        e.code === "commander.help"
      )
        return ExitCode.ok;
      return ExitCode.usage;
    }
    if (e instanceof UsageError) {
      err(`nodestep: ${e.message}`);
      return ExitCode.usage;
    }
    if (e instanceof RunFailed) {
      err(`nodestep: ${e.message}`);
      return ExitCode.failed;
    }
    if (classNames(e).includes("RunCancelledError") && io.signal?.aborted) {
      err("nodestep: cancelled");
      return ExitCode.cancelled;
    }
    const error = e instanceof Error ? e : new Error(String(e));
    err(`nodestep: ${error.name}: ${error.message}`);
    return ExitCode.failed;
  }
}
