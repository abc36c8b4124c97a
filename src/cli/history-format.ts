/**
 * `nodestep history`: a thread's stored events as readable rows. Each row is the event id, its
 * type, where it happened (`step 2 think`: a commit's node is read from the tasks the event
 * before it scheduled) and a one-line summary: what the model said, which tools it asked for
 * and what they returned, what was interrupted and how it was answered. The listing ends with
 * the hint that fits the branch's last run: how to answer it when it paused, how to retry it
 * when it failed, nothing when it finished.
 *
 * @module
 */
import type { StoredEvent } from "../stores/types.js";
import { shellQuote, shorten, showValue } from "./format.js";
import { showArguments, toolOutcome } from "./run-view.js";

type Data = Record<string, unknown>;

interface MessageLike {
  type?: unknown;
  content?: unknown;
  name?: unknown;
  toolCalls?: unknown;
}

const isObject = (v: unknown): v is Data =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Names of stored tasks (`"think"` or `{ id, name, payload }`). */
function taskNames(tasks: unknown): string[] | null {
  if (!Array.isArray(tasks)) return null;
  return tasks.map((t) => (typeof t === "string" ? t : String((t as { name?: unknown }).name)));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("");
}

/** The parts of one message in a summary. */
function messageParts(m: MessageLike): string[] {
  const text = textOf(m.content);
  switch (m.type) {
    case "human":
      return [`you: ${shorten(text, 80)}`];
    case "system":
      return [`system: ${shorten(text, 60)}`];
    case "tool":
      return [`${String(m.name ?? "tool")} ${toolOutcome(m.content, 60)}`];
    case "ai": {
      const parts = text ? [`ai: ${shorten(text, 100)}`] : [];
      if (Array.isArray(m.toolCalls) && m.toolCalls.length) {
        const calls = (m.toolCalls as { name?: unknown; arguments?: unknown }[]).map(
          (c) => `${String(c.name)}(${showArguments(c.arguments ?? {}, 50)})`,
        );
        parts.push(`asks for ${calls.join(", ")}`);
      }
      return parts;
    }
    default:
      return [showValue(m, 60)];
  }
}

/**
 * The summary of a task's stored outcome: its messages, then the other fields it wrote (their
 * names after messages, `name=value` without); `failed: …` for a task that raised.
 */
function outcomeSummary(d: Data): string {
  if (isObject(d.error)) return `failed: ${String(d.error.name)}: ${String(d.error.message)}`;
  const update = d.update;
  if (!isObject(update)) return update === null ? "no update" : "";
  const same = isObject(d.same) ? Object.keys(d.same) : [];
  const parts: string[] = [];
  const fields: [string, unknown][] = [];
  const texts = new Set<string>();
  for (const [key, value] of Object.entries(update)) {
    if (key === "messages" && Array.isArray(value)) {
      for (const m of value as MessageLike[]) {
        parts.push(...messageParts(m));
        texts.add(textOf(m.content));
      }
    } else if (!same.includes(key)) fields.push([key, value]);
  }
  if (parts.length === 0)
    return fields.map(([k, v]) => `${k}=${showValue(v, 60)}`).join(" ") || "no update";
  // Beside messages, fields that only reset (null, []) or repeat a message's text are left out.
  const also = fields.filter(
    ([, v]) =>
      v !== null &&
      !(Array.isArray(v) && v.length === 0) &&
      !(typeof v === "string" && texts.has(v)),
  );
  if (also.length) parts.push(`also ${also.map(([k]) => k).join(", ")}`);
  return parts.join(" · ");
}

/** What an interrupt asked: its `question` when it has one, else its value. */
function asked(i: unknown): string {
  if (!isObject(i)) return showValue(i, 80);
  const v = i.value;
  const text = isObject(v) && typeof v.question === "string" ? v.question : showValue(v, 80);
  return `${String(i.key)}: ${shorten(text, 80)}`;
}

function keysOf(interrupts: unknown): string[] {
  return Array.isArray(interrupts)
    ? interrupts.map((i) => String((i as { key?: unknown }).key))
    : [];
}

/** The one-line summary of a stored event. */
export function eventSummary(e: StoredEvent): string {
  const d = e.data;
  if (!isObject(d)) return "";
  switch (e.type) {
    case "run_started": {
      if (d.input !== undefined && d.input !== null) {
        const messages = isObject(d.input) ? d.input.messages : undefined;
        const last = Array.isArray(messages) ? messages.at(-1) : undefined;
        if (isObject(last)) return messageParts(last).join(" · ");
        return `input ${showValue(d.input, 80)}`;
      }
      if (isObject(d.resume) && Object.keys(d.resume).length) {
        const answers = Object.entries(d.resume).map(([k, v]) => `${k}=${showValue(v, 60)}`);
        return `answered ${answers.join(", ")}`;
      }
      return "continue";
    }
    case "step_committed":
    case "task_finished":
      return outcomeSummary(d);
    case "task_interrupted":
      return `asks ${Array.isArray(d.interrupts) ? d.interrupts.map(asked).join("; ") : showValue(d, 80)}`;
    case "task_cache": {
      if (d.discard === true) return "cache discarded";
      const kept = isObject(d.cache) ? Object.values(d.cache) : [];
      const shown = kept.map((m) =>
        isObject(m) && m.type === "tool"
          ? `${String(m.name)}${typeof m.toolCallId === "string" ? ` (call ${m.toolCallId})` : ""} ${toolOutcome(m.content, 40)}`
          : "",
      );
      return `kept for a resume: ${shown.filter(Boolean).join(", ") || showValue(d.cache, 60)}`;
    }
    case "run_finished":
      if (typeof d.stoppedBy === "string")
        return `stopped: run ${d.stoppedBy} asked for the thread`;
      if (d.status === "interrupted")
        return `paused: waiting for ${keysOf(d.interrupts).join(", ")}`;
      return showValue(d.status ?? "", 40);
    case "run_failed":
      return isObject(d.error)
        ? `failed: ${String(d.error.name)}: ${String(d.error.message)}`
        : `failed: ${showValue(d.error ?? d, 100)}`;
    case "state_updated":
      return stateUpdatedSummary(d);
    case "rolled_back":
      return `rolled back run(s) ${Array.isArray(d.runs) ? d.runs.join(", ") : "?"} to ${typeof d.toEventId === "string" ? d.toEventId : "the start"}`;
    default:
      return showValue(d, 100);
  }
}

/**
 * The summary of a `state_updated` event (written by `graph.updateState`, or a `Command` given
 * as run input): the update as stored (`no update` when it wrote nothing), then either the
 * nodes it leads to (`next: a, b`; `next: (none)` when the thread ends there) or
 * `next unchanged` (the tasks that were next stay next).
 */
function stateUpdatedSummary(data: Data): string {
  const update =
    data.update === undefined || data.update === null
      ? "no update"
      : `update ${showValue(data.update, 80)}`;
  const names = taskNames(data.next);
  if (names === null) return `${update}, next unchanged`;
  return `${update}, next: ${names.length ? names.join(", ") : "(none)"}`;
}

/** Options of {@link historyLines}. */
export interface HistoryOptions {
  /** The branch listed; named in the hint when it is not `"main"`. */
  branchId?: string;
  /** ` --store S` to put in the hint (the store as the user gave it), or `""`. */
  storeFlag?: string;
}

/**
 * The rows of `nodestep history` for a branch's events (oldest first), columns aligned, then
 * the hint for the branch's last run when it paused or failed.
 * @example historyLines(await store.read("t1", "main"))[0] // "t1/main/1  run_started     step 0          you: Refund 250 please"
 */
export function historyLines(events: readonly StoredEvent[], o: HistoryOptions = {}): string[] {
  const tasksAt = new Map<number, string[]>();
  const rows: [string, string, string, string][] = [];
  for (const e of events) {
    const d = isObject(e.data) ? e.data : {};
    let node = e.node;
    if (node === null && e.type === "step_committed" && e.step !== null)
      node = tasksAt.get(e.step)?.join(", ") ?? null;
    const where = e.step === null ? "" : `step ${e.step}${node === null ? "" : ` ${node}`}`;
    rows.push([e.id, e.type, where, eventSummary(e)]);
    const tasks = e.type === "run_started" ? taskNames(d.tasks) : null;
    if (tasks !== null && e.step !== null) tasksAt.set(e.step, tasks);
    const next =
      e.type === "step_committed" || e.type === "state_updated" ? taskNames(d.next) : null;
    if (next !== null && e.step !== null) tasksAt.set(e.step + 1, next);
  }
  const width = (i: number) => Math.max(0, ...rows.map((r) => r[i]!.length));
  const [w0, w1, w2] = [width(0), width(1), width(2)];
  const lines = rows.map(([id, type, where, summary]) =>
    `${id.padEnd(w0)}  ${type.padEnd(w1)}  ${where.padEnd(w2)}  ${summary}`.trimEnd(),
  );
  const hint = historyHint(events, o);
  if (hint !== null) lines.push("", hint);
  return lines;
}

/**
 * The interrupts pending after the failed run `failed`: a resume that fails gives its answers
 * back (src/graph/resume-base.ts), so those of the pause it answered are pending again (and
 * again after each failed resume since). `[]` when the failed run was not a resume of a pause.
 */
function pendingAfterFailure(events: readonly StoredEvent[], failed: StoredEvent): unknown {
  const at = events.indexOf(failed);
  const start = events.findLastIndex((e, i) => i < at && e.type === "run_started");
  const d = start >= 0 && isObject(events[start]!.data) ? events[start]!.data : {};
  if (!isObject(d.resume) || Object.keys(d.resume).length === 0) return [];
  for (let i = start - 1; i >= 0; i--) {
    const e = events[i]!;
    const data = isObject(e.data) ? e.data : {};
    if (e.type === "run_finished")
      return data.status === "interrupted" && data.stoppedBy === undefined ? data.interrupts : [];
    if (e.type === "state_updated" || e.type === "rolled_back") return [];
    if (e.type === "run_started" && data.input !== undefined && data.input !== null) return [];
  }
  return [];
}

/**
 * The hint after a branch's events (`nodestep history`, and `nodestep fork` for the branch it
 * made): how to answer a paused run (also one paused again by a `rolled_back` event last in
 * the history), continue a stopped one or retry a failed one; `null` otherwise.
 * @example historyHint(events, { branchId: "alt" }) // "paused: answer with: nodestep resume t1 --graph <module>#<export> --branch alt --answer 'approve=<answer>'"
 */
export function historyHint(events: readonly StoredEvent[], o: HistoryOptions): string | null {
  const last = events.findLast((e) => e.type === "run_finished" || e.type === "run_failed");
  const final = events.at(-1);
  const end = final?.type;
  const flags = `${o.storeFlag ?? ""}${o.branchId && o.branchId !== "main" ? ` --branch ${shellQuote(o.branchId)}` : ""}`;
  const resumeOf = (threadId: string) =>
    `nodestep resume ${shellQuote(threadId)} --graph <module>#<export>${flags}`;
  const answersOf = (interrupts: unknown) =>
    keysOf(interrupts)
      .map((k) => ` --answer ${shellQuote(`${k}=<answer>`)}`)
      .join("");
  if (final !== undefined && end === "rolled_back") {
    // A rollback last (its run refused after it, onBusy "rollback"): the thread is where it
    // went back to; paused there, its interrupts are pending again.
    const back = isObject(final.data) && isObject(final.data.position) ? final.data.position : {};
    const keys = answersOf(back.interrupts);
    return keys === "" ? null : `paused: answer with: ${resumeOf(final.threadId)}${keys}`;
  }
  if (last === undefined || end === "state_updated") return null;
  const resume = resumeOf(last.threadId);
  const d = isObject(last.data) ? last.data : {};
  if (last.type === "run_failed")
    return `failed: retry from before the failed step with: ${resume}${answersOf(pendingAfterFailure(events, last))}`;
  if (d.status !== "interrupted") return null;
  // Stopped by another run (onBusy): what was left to run goes on with a plain resume.
  if (typeof d.stoppedBy === "string") return `stopped: continue it with: ${resume}`;
  return `paused: answer with: ${resume}${answersOf(d.interrupts)}`;
}
