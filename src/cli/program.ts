/**
 * The `nodestep` command line: run a graph and watch it, list threads, read a thread's
 * history, answer interrupts, fork, and serve the HTTP API and studio.
 *
 * Exit codes: 0 done; 1 the run (or the store) failed; 2 usage error; 3 the run paused for
 * input (answer with `nodestep resume`); 130 interrupted by Ctrl-C. See docs/cli.md.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { HumanMessage } from "../chat/messages.js";
import { StateUpdateError } from "../errors/index.js";
import { checkRunInput } from "../graph/input-check.js";
import { prototypeKey } from "../json/depth.js";
import type { JsonValue } from "../json/index.js";
import type { PriceTable } from "../middleware/prices.js";
import { classNames } from "../server/errors.js";
import { collect, parseAnswer, parseJsonObject, positiveInt, readPrices } from "./args.js";
import { interruptLines, shellQuote } from "./format.js";
import { historyLines } from "./history-format.js";
import {
  DEFAULT_STORE,
  type LoadedGraph,
  loadGraph,
  maskPassword,
  type OpenStore,
  openStore,
  RunFailed,
  UsageError,
} from "./load.js";
import { addMemoryCommands } from "./memory-commands.js";
import { type RunSettings, streamRun } from "./run.js";
import { addServeCommand } from "./serve-command.js";
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

  program
    .command("run")
    .description("run a graph on a thread and stream what it does")
    .argument("[target]", "the graph: <module>#<export> (default $NODESTEP_GRAPH)")
    .option("-m, --message <text>", "a human message to send (needs a messages field)")
    .option("-i, --input <json>", "the input as a JSON object (a state update)")
    .option("-t, --thread <id>", "thread to run on (default: a new thread)")
    .option("-b, --branch <id>", "branch of the thread", "main")
    .addOption(storeOption())
    .addOption(modelOption())
    .option("--json", "print one JSON object per line instead of text")
    .option("--verbose", "print every step's fields and messages instead of the conversation")
    .option("--prices <file>", "a JSON price table (USD per million tokens) for the run's cost")
    .action(async (target: string | undefined, o: RunOpts) => {
      if (o.message !== undefined && o.input !== undefined) {
        throw new UsageError("give --message or --input, not both");
      }
      let input: Record<string, unknown> | null = null;
      if (o.message !== undefined) input = { messages: [HumanMessage({ content: o.message })] };
      else if (o.input !== undefined) input = parseJsonObject(o.input, "--input");
      if (input === null && o.thread === undefined) {
        throw new UsageError("give --message or --input (or --thread to continue a thread)");
      }
      const t = graphTarget(target);
      const prices = o.prices === undefined ? null : readPrices(o.prices);
      const threadId = o.thread ?? `t-${randomBytes(4).toString("hex")}`;
      code = await withGraph(
        t,
        o,
        (loaded) =>
          streamRun(io, loaded, input, undefined, {
            ...runSettings(o, t, prices),
            threadId,
            fromMessage: o.message !== undefined,
          }),
        // The input is checked first: before the graph's store and model, and before the run
        // prints its header.
        (graph) => checkCliInput(graph, input, o.message !== undefined ? "--message" : "--input"),
      );
    });

  program
    .command("resume")
    .description("answer a paused run's interrupts and let it go on")
    .argument("<thread>", "the paused thread")
    .option("-g, --graph <target>", "the graph: <module>#<export> (default $NODESTEP_GRAPH)")
    .option(
      "-a, --answer <key=value>",
      "an answer, by interrupt key; the value is read as JSON when it parses, else as text (repeatable)",
      collect,
      [] as string[],
    )
    .option("-b, --branch <id>", "branch of the thread", "main")
    .addOption(storeOption())
    .addOption(modelOption())
    .option("--json", "print one JSON object per line instead of text")
    .option("--verbose", "print every step's fields and messages instead of the conversation")
    .option("--prices <file>", "a JSON price table (USD per million tokens) for the run's cost")
    .action(async (threadId: string, o: ResumeOpts) => {
      const resume: Record<string, JsonValue> = {};
      for (const a of o.answer) {
        const eq = a.indexOf("=");
        if (eq <= 0) throw new UsageError(`--answer takes KEY=VALUE, got "${a}"`);
        const key = a.slice(0, eq);
        const value = parseAnswer(a.slice(eq + 1));
        // As the server refuses them: on a plain object `__proto__` would be dropped silently
        // (and the paused node run again), and nested ones could reach a prototype.
        const bad = prototypeKey({ [key]: value });
        if (bad !== null) {
          throw new UsageError(
            `${bad}: the keys __proto__, constructor and prototype are not accepted`,
          );
        }
        Object.defineProperty(resume, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      const t = graphTarget(o.graph);
      const prices = o.prices === undefined ? null : readPrices(o.prices);
      code = await withGraph(t, o, async (loaded) => {
        const before = await loaded.graph.getState(threadId, { branchId: o.branch });
        if (before.lastEventId === null)
          throw new RunFailed(`no thread "${threadId}" in ${loaded.storeLabel}`);
        if (o.answer.length === 0 && before.interrupts.length > 0) {
          throw new UsageError(
            `thread "${threadId}" is waiting for ${before.interrupts.length} answer(s); give them with --answer KEY=VALUE:\n${interruptLines(before.interrupts).join("\n")}`,
          );
        }
        return streamRun(io, loaded, null, resume, { ...runSettings(o, t, prices), threadId });
      });
    });

  const threads = program
    .command("threads")
    .description("list the threads of a store, most recent first (delete one with: threads delete)")
    .addOption(storeOption())
    .option("--limit <n>", "at most this many threads", positiveInt("--limit", 1))
    .option("--offset <n>", "skip this many threads first", positiveInt("--offset", 0))
    .option("--json", "print JSON")
    .action(async (o: StoreOpts & { json?: boolean; limit?: number; offset?: number }) => {
      await withStore(o, async (store) => {
        const threads = await store.listThreads({
          ...(o.limit === undefined ? {} : { limit: o.limit }),
          ...(o.offset === undefined ? {} : { offset: o.offset }),
        });
        if (o.json) return out(JSON.stringify(threads));
        if (threads.length === 0) return out(`no threads in ${storeLabelOf(storeSpec(o))}`);
        for (const t of threads) {
          out(
            `${t.threadId}  ${new Date(t.updatedAt).toISOString()}  branches: ${t.branches.join(", ")}`,
          );
        }
      });
    });

  threads
    .command("delete")
    .description(
      "delete a thread: its branches, events, snapshots and leases (a running thread is refused)",
    )
    .argument("<thread>", "the thread")
    .option("--children", "also delete its subgraphs' and sub-agents' threads (<thread>:...)")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(async (threadId: string, _local: unknown, cmd: Command) => {
      // `threads` has the same options: commander gives them to whichever comes first.
      const o = cmd.optsWithGlobals<StoreOpts & { children?: boolean; json?: boolean }>();
      await withStore(o, async (store) => {
        const deleted = await store.deleteThread(threadId, { children: !!o.children });
        // With --json the answer is printed either way; none deleted is still exit 1.
        if (o.json) out(JSON.stringify({ deleted }));
        if (deleted.length === 0)
          throw new RunFailed(`no thread "${threadId}" in ${storeLabelOf(storeSpec(o))}`);
        if (!o.json) out(`deleted ${deleted.join(", ")}`);
      });
    });

  program
    .command("history")
    .description("list the events of a thread's branch, oldest first")
    .argument("<thread>", "the thread")
    .option("-b, --branch <id>", "branch of the thread", "main")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(async (threadId: string, o: StoreOpts & { branch: string; json?: boolean }) => {
      await withStore(o, async (store) => {
        const events = await store.read(threadId, o.branch);
        if (events.length === 0)
          throw new RunFailed(`no thread "${threadId}" in ${storeLabelOf(storeSpec(o))}`);
        if (o.json) return out(JSON.stringify(events));
        for (const line of historyLines(events, {
          storeFlag: storeFlagOf(o.store),
          branchId: o.branch,
        }))
          out(line);
      });
    });

  program
    .command("fork")
    .description("start a new branch of a thread after one of its events")
    .argument("<thread>", "the thread")
    .requiredOption("-e, --event <id>", "the event the branch starts after (see nodestep history)")
    .option("--new-branch <id>", "id of the new branch (default: generated)")
    .addOption(storeOption())
    .option("--json", "print JSON")
    .action(
      async (
        threadId: string,
        o: StoreOpts & { event: string; newBranch?: string; json?: boolean },
      ) => {
        await withStore(o, async (store) => {
          if (o.newBranch !== undefined && (await store.getBranch(threadId, o.newBranch))) {
            throw new UsageError(`thread "${threadId}" already has a branch "${o.newBranch}"`);
          }
          const branch = await store.createBranch(threadId, o.event, o.newBranch);
          if (o.json) return out(JSON.stringify(branch));
          out(`forked thread ${threadId} after ${o.event}: branch ${branch.branchId}`);
          out(
            `run on it: nodestep run <module>#<export> --thread ${shellQuote(threadId)} --branch ${shellQuote(branch.branchId)}${storeFlagOf(o.store)} --message "…"`,
          );
        });
      },
    );

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
  addWorkerCommand(program, { io, out, err, withGraph, graphTarget, storeOption, modelOption });
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

/**
 * Check a run's input against the graph as `invoke` would.
 * @throws UsageError saying which flag's input does not fit, with the graph's message.
 */
function checkCliInput(
  graph: LoadedGraph["graph"],
  input: Record<string, unknown> | null,
  flag: string,
): void {
  try {
    checkRunInput(graph, input);
  } catch (e) {
    if (e instanceof StateUpdateError && e.node === "__input__") {
      throw new UsageError(`${flag} does not fit the graph's state: ${e.message}`);
    }
    throw e;
  }
}

/** The settings of a run or resume from its options. */
function runSettings(
  o: { branch: string; json?: boolean; verbose?: boolean; store?: string },
  target: string,
  prices: PriceTable | null,
): Omit<RunSettings, "threadId"> {
  return {
    branchId: o.branch,
    json: !!o.json,
    verbose: !!o.verbose,
    target,
    storeOpt: o.store,
    prices,
  };
}

/** ` --store S` when the store was given (a password masked), else `""`. */
function storeFlagOf(store: string | undefined): string {
  return store === undefined ? "" : ` --store ${shellQuote(maskPassword(store))}`;
}

interface RunOpts extends StoreOpts {
  message?: string;
  input?: string;
  thread?: string;
  branch: string;
  json?: boolean;
  verbose?: boolean;
  prices?: string;
}
interface ResumeOpts extends StoreOpts {
  graph?: string;
  answer: string[];
  branch: string;
  json?: boolean;
  verbose?: boolean;
  prices?: string;
}

function storeLabelOf(spec: string): string {
  return maskPassword(spec);
}
