/**
 * `nodestep run` and `nodestep resume`: run a graph on a thread, or answer a paused run's
 * interrupts and let it go on, and stream what it does.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { type Command, Option } from "commander";
import { HumanMessage } from "../chat/messages.js";
import { StateUpdateError } from "../errors/index.js";
import { BUSY_POLICIES, type BusyPolicy, MAX_BUSY_TIMEOUT_MS } from "../graph/busy.js";
import { checkRunInput } from "../graph/input-check.js";
import { prototypeKey } from "../json/depth.js";
import type { JsonValue } from "../json/index.js";
import type { PriceTable } from "../middleware/prices.js";
import { collect, parseAnswer, parseJsonObject, readPrices } from "./args.js";
import { interruptLines } from "./format.js";
import { type LoadedGraph, RunFailed, UsageError } from "./load.js";
import { type RunIo, type RunSettings, streamRun } from "./run.js";

/** What `run` and `resume` need from the CLI around it. */
export interface RunCommandsHost {
  io: RunIo;
  /** Load the graph (checked by `check` first, when given), call `fn`, then close it. */
  withGraph: <T>(
    target: string,
    o: { store?: string; model?: string },
    fn: (loaded: LoadedGraph) => Promise<T>,
    check?: (graph: LoadedGraph["graph"]) => void,
  ) => Promise<T>;
  graphTarget: (given: string | undefined) => string;
  storeOption: () => Option;
  modelOption: () => Option;
  /** Set the exit code the CLI returns (a run's or resume's). */
  setCode: (code: number) => void;
}

/** Add `run` and `resume` to the program. */
export function addRunCommands(program: Command, host: RunCommandsHost): void {
  const { io, withGraph, graphTarget, storeOption, modelOption, setCode } = host;
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
    .addOption(onBusyOption())
    .addOption(onBusyTimeoutOption())
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
      setCode(
        await withGraph(
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
        ),
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
    .addOption(onBusyOption())
    .addOption(onBusyTimeoutOption())
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
      setCode(
        await withGraph(t, o, async (loaded) => {
          const before = await loaded.graph.getState(threadId, { branchId: o.branch });
          if (before.lastEventId === null)
            throw new RunFailed(`no thread "${threadId}" in ${loaded.storeLabel}`);
          if (o.answer.length === 0 && before.interrupts.length > 0) {
            throw new UsageError(
              `thread "${threadId}" is waiting for ${before.interrupts.length} answer(s); give them with --answer KEY=VALUE:\n${interruptLines(before.interrupts).join("\n")}`,
            );
          }
          return streamRun(io, loaded, null, resume, { ...runSettings(o, t, prices), threadId });
        }),
      );
    });
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

/** `--on-busy`: what the run does when another run holds the thread (`onBusy`). */
function onBusyOption(): Option {
  return new Option(
    "--on-busy <policy>",
    "when another run holds the thread: reject (fail), enqueue (wait for it), interrupt (stop it) or rollback (stop and undo it)",
  ).choices(BUSY_POLICIES);
}

/** `--on-busy-timeout`: how long `--on-busy` waits for the thread, in ms (`onBusyTimeoutMs`). */
function onBusyTimeoutOption(): Option {
  return new Option(
    "--on-busy-timeout <ms>",
    `how long --on-busy enqueue, interrupt or rollback waits for the thread, in ms (at most ${MAX_BUSY_TIMEOUT_MS}; default 30000)`,
  ).argParser(busyTimeout);
}

/**
 * `--on-busy-timeout`'s value: an integer from 0 to `MAX_BUSY_TIMEOUT_MS`, in ms.
 * @throws UsageError `--on-busy-timeout must be an integer from 0 to 3600000 (ms), got "<text>"`.
 */
function busyTimeout(text: string): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n > MAX_BUSY_TIMEOUT_MS) {
    throw new UsageError(
      `--on-busy-timeout must be an integer from 0 to ${MAX_BUSY_TIMEOUT_MS} (ms), got ${JSON.stringify(text)}`,
    );
  }
  return n;
}

/** The settings of a run or resume from its options. */
function runSettings(
  o: {
    branch: string;
    json?: boolean;
    verbose?: boolean;
    store?: string;
    onBusy?: BusyPolicy;
    onBusyTimeout?: number;
  },
  target: string,
  prices: PriceTable | null,
): Omit<RunSettings, "threadId"> {
  if (o.onBusyTimeout !== undefined && (o.onBusy === undefined || o.onBusy === "reject")) {
    throw new UsageError(
      "--on-busy-timeout is how long --on-busy enqueue, interrupt or rollback waits; give one of them with it",
    );
  }
  return {
    branchId: o.branch,
    json: !!o.json,
    verbose: !!o.verbose,
    target,
    storeOpt: o.store,
    prices,
    ...(o.onBusy !== undefined ? { onBusy: o.onBusy } : {}),
    ...(o.onBusyTimeout !== undefined ? { onBusyTimeoutMs: o.onBusyTimeout } : {}),
  };
}

interface RunOpts {
  store?: string;
  model?: string;
  message?: string;
  input?: string;
  thread?: string;
  branch: string;
  json?: boolean;
  verbose?: boolean;
  prices?: string;
  onBusy?: BusyPolicy;
  onBusyTimeout?: number;
}
interface ResumeOpts {
  store?: string;
  model?: string;
  graph?: string;
  answer: string[];
  branch: string;
  json?: boolean;
  verbose?: boolean;
  prices?: string;
  onBusy?: BusyPolicy;
  onBusyTimeout?: number;
}
