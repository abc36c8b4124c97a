/**
 * `nodestep run` and `nodestep resume`: stream a run and print it (the readable view, the
 * `--verbose` field dumps, or `--json` lines), then how it ended with the hint that fits:
 * the exact resume command when it paused, how to retry when it failed, how to go on when it
 * finished. See docs/cli.md.
 *
 * @module
 */
import type { InterruptInfo } from "../errors/index.js";
import { type BusyPolicy, MAX_BUSY_TIMEOUT_MS } from "../graph/busy.js";
import { pickOutput } from "../graph/io-schema.js";
import type { StreamEvent } from "../graph/types.js";
import type { JsonValue } from "../json/index.js";
import type { PriceTable } from "../middleware/prices.js";
import { usageReport } from "../middleware/usage-report.js";
import { usageFromEvents } from "../middleware/usage-totals.js";
import { classNames } from "../server/errors.js";
import type { ServedGraph } from "../server/types.js";
import { answerOf, eventLines, interruptLines, shellQuote } from "./format.js";
import { type LoadedGraph, maskPassword, RunFailed, UsageError } from "./load.js";
import { ProgressLine, progressEnabled } from "./progress.js";
import { type CallInfo, callsOf, RunView, usageLine } from "./run-view.js";

/** Where a run prints. */
export interface RunIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  signal?: AbortSignal;
  /** stdout and stderr are terminals: show the progress line. */
  tty?: boolean;
}

/** How to run and print. */
export interface RunSettings {
  threadId: string;
  branchId: string;
  json: boolean;
  verbose: boolean;
  target: string;
  storeOpt: string | undefined;
  prices: PriceTable | null;
  /** The input came from --message. */
  fromMessage?: boolean;
  /** `--on-busy`: the run's `onBusy` (default: the graph's, `"reject"`). */
  onBusy?: BusyPolicy;
  /** `--on-busy-timeout`: the run's `onBusyTimeoutMs`, in ms. */
  onBusyTimeoutMs?: number;
}

/** Exit codes a run ends with (see `ExitCode`). */
const OK = 0;
const PAUSED = 3;

/**
 * Stream a run of `loaded` and print it; resolves with the exit code (0 done, 3 paused).
 * @throws RunFailed (exit 1) or UsageError (exit 2) as the CLI reports them; a cancelled run's
 *   error as it is.
 */
export async function streamRun(
  io: RunIo,
  loaded: LoadedGraph,
  input: Record<string, unknown> | null,
  resume: Record<string, JsonValue> | undefined,
  s: RunSettings,
): Promise<number> {
  const out = (line = "") => io.stdout(`${line}\n`);
  const graph: ServedGraph = loaded.graph;
  const { threadId, branchId, json, verbose } = s;
  const before = await graph.getState(threadId, { branchId }).catch(() => null);
  const afterSeq = (await loaded.store.getBranch(threadId, branchId))?.lastSeq ?? 0;
  if (!json)
    out(
      `thread ${threadId} · branch ${branchId} · graph ${graph.name} · store ${loaded.storeLabel}`,
    );
  if (!json && input && Array.isArray(input.messages)) {
    for (const m of input.messages as { content?: unknown }[]) out(`you: ${String(m.content)}`);
  }
  const known: [string, CallInfo][] = [];
  const messages = (before?.state as { messages?: unknown } | undefined)?.messages;
  if (Array.isArray(messages)) for (const m of messages) known.push(...callsOf(m));
  const view = new RunView(known);
  const progress =
    !verbose && progressEnabled({ json, tty: !!io.tty }) ? new ProgressLine(io.stderr) : null;
  const write = (text: string) => {
    if (text === "") return;
    progress?.clear();
    io.stdout(text);
  };
  const streamed = new Set<string>();
  let open = false; // --verbose: tokens of a model turn are being printed
  const usage = async () => {
    // The whole branch: an answer an earlier run wrote, kept and written again, counts no more.
    const events = await loaded.store.read(threadId, branchId).catch(() => []);
    return usageReport(usageFromEvents(events, { afterSeq }), s.prices);
  };
  const printUsage = async () => {
    const line = usageLine(await usage());
    if (line !== null) out(line);
  };
  try {
    const events = graph.stream(input, {
      threadId,
      branchId,
      modes:
        verbose || json
          ? ["updates", "custom", "tokens"]
          : ["updates", "custom", "tokens", "tasks"],
      ...(resume && Object.keys(resume).length ? { resume } : {}),
      ...(s.onBusy !== undefined ? { onBusy: s.onBusy } : {}),
      ...(s.onBusyTimeoutMs !== undefined ? { onBusyTimeoutMs: s.onBusyTimeoutMs } : {}),
      ...(loaded.context !== undefined ? { context: loaded.context } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    for await (const event of events as AsyncIterable<StreamEvent>) {
      if (json) {
        out(JSON.stringify({ event: event.mode, ...event }));
        continue;
      }
      if (!verbose) {
        write(view.event(event));
        progress?.set(view.running());
        continue;
      }
      if (event.mode === "tokens") {
        const delta = (event.data as { contentDelta?: unknown } | null)?.contentDelta;
        if (typeof delta === "string" && delta !== "") {
          if (!open) io.stdout(`[${event.step}] ${event.node ?? "-"}: ai: `);
          open = true;
          streamed.add(event.node ?? "");
          io.stdout(delta);
        }
        continue;
      }
      if (open) {
        io.stdout("\n");
        open = false;
      }
      for (const line of eventLines(event, streamed)) out(line);
      if (event.mode === "updates") streamed.delete(event.node ?? "");
    }
  } catch (e) {
    progress?.clear();
    if (open) io.stdout("\n");
    if (!verbose && !json) write(view.end(false));
    if (json) {
      const error = e instanceof Error ? e : new Error(String(e));
      out(JSON.stringify({ event: "error", error: { type: error.name, message: error.message } }));
    }
    const names = classNames(e);
    if (names.includes("RunCancelledError") && io.signal?.aborted) throw e;
    const error = e instanceof Error ? e : new Error(String(e));
    if (names.includes("ThreadBusyError")) {
      // `you: …` was printed before the run tried the thread: say the input did not go in,
      // and how to go on (--on-busy).
      const given =
        input === null ? null : "messages" in input && s.fromMessage ? "--message" : "--input";
      const notSent = given === null ? "nothing was written" : `${given} was not sent`;
      throw new RunFailed(`${error.message}\n(${busyAdvice(notSent, threadId, s.onBusy)})`);
    }
    if (names.includes("UnknownBranchError")) throw new RunFailed(error.message);
    if (resume && isBadAnswer(names, e)) throw new UsageError(error.message);
    if (names.includes("StateUpdateError") && (e as { node?: unknown }).node === "__input__") {
      const given =
        input !== null && "messages" in input && s.fromMessage ? "--message" : "--input";
      throw new UsageError(`${given} does not fit the graph's state: ${error.message}`);
    }
    if (names.includes("PendingToolCallsError") && input !== null) {
      // The agent refused the input before writing it: say how to go on from the thread as
      // the store holds it now (what the refusal judged), not as read before the run.
      const given = "messages" in input && s.fromMessage ? "--message" : "--input";
      if (!json) {
        const now = await graph.getState(threadId, { branchId }).catch(() => before);
        printRefused(out, s, now?.interrupts ?? [], now?.next ?? [], e as RefusedInput);
      }
      throw new UsageError(`${given} was refused: ${error.message}`);
    }
    if (!json) await printUsage();
    throw new RunFailed(`run failed: ${error.name}: ${error.message}\n(${await afterFailure()})`);
  }
  // Suggest a retry only where there is something to retry: stored events in a lasting store.
  async function afterFailure(): Promise<string> {
    if (loaded.storeLabel === "memory") return "the memory store is gone when the command ends";
    // Refused before its first event (a graph's checkInput): a resume would not retry it.
    const lastSeq = (await loaded.store.getBranch(threadId, branchId))?.lastSeq ?? 0;
    if (input !== null && afterSeq > 0 && lastSeq === afterSeq)
      return `nothing was written: thread ${threadId} is as it was`;
    const now = await graph.getState(threadId, { branchId }).catch(() => null);
    if (now === null || now.lastEventId === null) return `nothing was stored on thread ${threadId}`;
    // A failed resume gives its answers back: the interrupts it answered are pending again.
    const answers = now.interrupts
      .map((i) => ` --answer ${shellQuote(`${i.key}=<answer>`)}`)
      .join("");
    return `the thread keeps its state from before the failed step; retry with: nodestep resume ${shellQuote(threadId)} --graph ${shellQuote(s.target)}${flags(s)}${answers}`;
  }
  progress?.clear();
  if (open) io.stdout("\n");
  const snapshot = await graph.getState(threadId, { branchId });
  // What the run returns: the graph's output fields (all of them without an output schema).
  const after = { ...snapshot, state: pickOutput(snapshot.state, graph.outputFields) };
  const paused = after.interrupts.length > 0;
  if (json) {
    out(
      JSON.stringify({
        event: "end",
        threadId,
        branchId,
        status: after.status,
        interrupts: after.interrupts,
        lastEventId: after.lastEventId,
        state: after.state,
        usage: await usage(),
      }),
    );
    return paused ? PAUSED : OK;
  }
  if (!verbose) write(view.end(paused));
  if (paused) {
    await printUsage();
    printPaused(out, s, after.interrupts, loaded.storeLabel === "memory");
    return PAUSED;
  }
  const answer = answerOf(after.state);
  // The readable view printed the answer as it came; --verbose and a state without messages end with it.
  const tail: string[] = [];
  if (verbose || answer === null) tail.push(answer ?? JSON.stringify(after.state, null, 2));
  const used = usageLine(await usage());
  if (used !== null) tail.push(used);
  if (loaded.storeLabel !== "memory" && !loaded.storeLabel.startsWith("the graph's own store")) {
    const next = answer === null ? `--input '{…}'` : `--message '…'`;
    tail.push(
      `go on with: nodestep run ${shellQuote(s.target)} --thread ${shellQuote(threadId)}${flags(s)} ${next}`,
    );
  }
  if (tail.length) out();
  for (const line of tail) out(line);
  return OK;
}

/** ` --store S --branch B`, as given (a password masked). */
function flags(s: RunSettings): string {
  return `${storeFlag(s)}${s.branchId !== "main" ? ` --branch ${shellQuote(s.branchId)}` : ""}`;
}

/** ` --store S` as given (a password masked), or `""`. */
function storeFlag(s: RunSettings): string {
  return s.storeOpt !== undefined ? ` --store ${shellQuote(maskPassword(s.storeOpt))}` : "";
}

/** Whether an interrupt's value is an `ApprovalMiddleware` request (`{ tool, arguments, question }`). */
function isApproval(value: unknown): boolean {
  const v = value as { tool?: unknown; arguments?: unknown; question?: unknown } | null;
  return (
    typeof v?.tool === "string" && typeof v.question === "string" && typeof v.arguments === "object"
  );
}

function printPaused(
  out: (line?: string) => void,
  s: RunSettings,
  interrupts: readonly InterruptInfo[],
  memory: boolean,
) {
  out();
  out(`paused: waiting for ${interrupts.length} answer${interrupts.length === 1 ? "" : "s"}`);
  for (const line of interruptLines(interrupts)) out(line);
  if (memory) {
    // No resume command: the thread goes with the memory store.
    out("the memory store is gone when the command ends: run on a lasting store to answer");
    return;
  }
  const answers = interrupts
    .map((i) => ` --answer ${shellQuote(`${i.key}=${isApproval(i.value) ? "yes" : "<answer>"}`)}`)
    .join("");
  out("answer with:");
  out(
    `  nodestep resume ${shellQuote(s.threadId)} --graph ${shellQuote(s.target)}${flags(s)}${answers}`,
  );
  if (interrupts.some((i) => isApproval(i.value))) {
    out(
      `  (an approval takes yes, no, {"approved":false,"reason":"…"} or {"approved":true,"arguments":{…}})`,
    );
  }
}

/** What `printRefused` reads of a `PendingToolCallsError`. */
interface RefusedInput {
  readonly callIds: readonly string[];
  /** The event to fork at (before the model's request), when the error knows it. */
  readonly forkAt?: string | null;
}

/**
 * After new input refused on a thread waiting on tool results: its pending answers and how to
 * give them (as a paused run prints them), or how to continue the stopped tool step (or, with
 * nothing to run next, that resuming would not answer them); then how to fork it.
 */
function printRefused(
  out: (line?: string) => void,
  s: RunSettings,
  interrupts: readonly InterruptInfo[],
  next: readonly string[],
  e: RefusedInput,
) {
  out();
  out(
    `refused: tool call${e.callIds.length === 1 ? "" : "s"} ${e.callIds.join(", ")} without results; nothing was written`,
  );
  if (interrupts.length > 0) printPaused(out, s, interrupts, false);
  else if (next.length === 0) {
    // (Calls written by a state update, not by a run of the model: resuming runs nothing.)
    out("nothing runs next on the thread to answer them: add a tool message for each with the");
    out("library's graph.updateState");
  } else {
    out("continue the tool step with:");
    out(`  nodestep resume ${shellQuote(s.threadId)} --graph ${shellQuote(s.target)}${flags(s)}`);
  }
  const forkAt = typeof e.forkAt === "string" ? e.forkAt : null;
  out(
    forkAt === null
      ? `or fork the thread before the model's request (nodestep history ${shellQuote(s.threadId)}${flags(s)}, then nodestep fork ${shellQuote(s.threadId)}${storeFlag(s)} --event <id>) and run on the branch`
      : `or fork the thread before the model's request (nodestep fork ${shellQuote(s.threadId)}${storeFlag(s)} --event ${shellQuote(forkAt)}) and run on the branch`,
  );
}

/**
 * Whether a run's error is about its `--answer` values (refused before anything was written):
 * a key no interrupt waits on, or a value that cannot be stored (nested past the depth limit).
 */
function isBadAnswer(names: readonly string[], e: unknown): boolean {
  const { message, field } = e as { message?: unknown; field?: unknown };
  if (names.includes("ValueError") && typeof message === "string")
    return message.includes("has no pending interrupt with key");
  return (
    names.includes("StateStoreError") &&
    typeof field === "string" &&
    (field === "resume" || field.startsWith("resume.") || field.startsWith("resume["))
  );
}

/**
 * How to go on after `ThreadBusyError`: without `--on-busy` (or with `reject`), pass one; with
 * `enqueue`, `interrupt` or `rollback` the wait passed `--on-busy-timeout`, so a longer one,
 * and `interrupt` and `rollback` left a stop request with the other run (it stops at its next
 * superstep; nothing is undone: docs/busy-threads.md#limits).
 */
function busyAdvice(notSent: string, threadId: string, onBusy: BusyPolicy | undefined): string {
  if (onBusy === undefined || onBusy === "reject") {
    return `${notSent}; thread ${threadId} is as it was; run the command again with --on-busy enqueue to wait for the other run, interrupt to stop it or rollback to undo it`;
  }
  const again = `run the command again with a longer --on-busy-timeout (at most ${MAX_BUSY_TIMEOUT_MS} ms), or later`;
  if (onBusy === "enqueue") {
    return `${notSent}; thread ${threadId} is as it was; the other run still holds it: ${again}`;
  }
  const undone = onBusy === "rollback" ? ", not undone" : "";
  return `${notSent}, but the other run was asked to stop and stops at its next superstep${undone}; ${again}`;
}
