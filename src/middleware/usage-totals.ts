/**
 * Token usage totals of a thread (a branch) and of a run, folded from the stored events
 * alone: the `AIMessage`s that tasks wrote, with their `usage`. No state is rebuilt and no
 * node runs; `UsageLedger` keeps a running total per branch and reads only the events after it.
 *
 * @module
 */
import { isPlainObject, type JsonObject } from "../json/index.js";
import type { StateStore, StoredEvent } from "../stores/types.js";

/** Token totals (each a number of tokens) and the number of model responses counted. */
export interface UsageTotals {
  /** Input tokens, cached ones included. */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input + output (the response's own `totalTokens` when it reported one). */
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number;
  /** Output tokens spent on reasoning. */
  reasoningTokens: number;
  /** Model responses counted. */
  calls: number;
}

/** Totals of a thread's branch or of a run. */
export interface UsageSummary {
  /** All models together. */
  usage: UsageTotals;
  /**
   * By model: the `AIMessage`'s `responseMetadata.model` (which `modelNode` records with
   * usage), else `"unknown"`.
   */
  byModel: Record<string, UsageTotals>;
  /**
   * Budget raises approved on this branch by answers to `UsageBudgetMiddleware`'s pauses
   * (`{ approve: true, addTokens, addCostUsd }`): tokens and US dollars.
   */
  approved: { tokens: number; usd: number };
}

/**
 * Totals with nothing counted.
 * @example emptyTotals() // { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, calls: 0 }
 */
export function emptyTotals(): UsageTotals {
  return {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    calls: 0,
  };
}

function emptySummary(): UsageSummary {
  return { usage: emptyTotals(), byModel: {}, approved: { tokens: 0, usd: 0 } };
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * Set `obj[key]` as an own, enumerable field: a model's name comes from its provider's answer,
 * and `obj["__proto__"] = …` would replace `obj`'s prototype instead (and `obj.__proto__`,
 * `obj.constructor` read Object.prototype's, whose totals would then be added to every object).
 */
export function ownKey<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function add(t: UsageTotals, u: JsonObject): void {
  const input = num(u.inputTokens);
  const output = num(u.outputTokens);
  t.inputTokens += input;
  t.outputTokens += output;
  t.totalTokens += typeof u.totalTokens === "number" ? num(u.totalTokens) : input + output;
  t.cachedInputTokens += num(u.cachedInputTokens);
  t.reasoningTokens += num(u.reasoningTokens);
  t.calls += 1;
}

/** The key budget pauses are asked under: `"usage-budget:<taskId>"`. */
export const BUDGET_KEY_PREFIX = "usage-budget:";

/**
 * The key an answer is counted under: its id, else its JSON. An answer is counted once, by
 * the first event that writes it: an update that writes it again (a kept message after
 * `SummarizationMiddleware`'s removals, which comes back with its id) counts nothing more, in
 * the thread's totals and in its run's.
 */
export function storedMessageKey(m: Record<string, unknown>): string {
  return typeof m.id === "string" ? m.id : JSON.stringify(m);
}

function countMessage(
  seen: Set<string>,
  targets: UsageSummary[],
  m: Record<string, unknown>,
): void {
  if (m.type !== "ai" || !isPlainObject(m.usage)) return;
  const key = storedMessageKey(m);
  if (seen.has(key)) return;
  seen.add(key);
  const meta = m.responseMetadata;
  const model = isPlainObject(meta) && typeof meta.model === "string" ? meta.model : "unknown";
  const count = (name: string, u: JsonObject) => {
    for (const t of targets) {
      add(t.usage, u);
      if (!Object.hasOwn(t.byModel, name)) ownKey(t.byModel, name, emptyTotals());
      add(t.byModel[name]!, u);
    }
  };
  count(model, m.usage as JsonObject);
  for (const call of middlewareCallsOf(m)) count(call.model, call.usage);
}

/**
 * The model calls middleware made in the step of a stored answer
 * (`responseMetadata.middlewareCalls`, which `modelNode` writes from `ctx.recordCall`), each
 * with its model (`"unknown"` when none) and usage; `[]` when there are none.
 * @example middlewareCallsOf(message) // [{ middleware: "SummarizationMiddleware", model: "small", usage: { inputTokens: 40, outputTokens: 8 } }]
 */
export function middlewareCallsOf(
  m: Record<string, unknown>,
): { middleware: string; model: string; usage: JsonObject }[] {
  const meta = m.responseMetadata;
  if (!isPlainObject(meta) || !Array.isArray(meta.middlewareCalls)) return [];
  const out: { middleware: string; model: string; usage: JsonObject }[] = [];
  for (const c of meta.middlewareCalls) {
    if (!isPlainObject(c) || !isPlainObject(c.usage)) continue;
    out.push({
      middleware: typeof c.middleware === "string" ? c.middleware : "unknown",
      model: typeof c.model === "string" ? c.model : "unknown",
      usage: c.usage as JsonObject,
    });
  }
  return out;
}

/** The messages of an update: lists among its values, or one level inside them. */
function countUpdate(seen: Set<string>, targets: UsageSummary[], update: unknown): void {
  if (!isPlainObject(update)) return;
  for (const value of Object.values(update)) {
    const lists = Array.isArray(value)
      ? [value]
      : isPlainObject(value)
        ? Object.values(value).filter(Array.isArray)
        : [];
    for (const list of lists) {
      for (const item of list as unknown[]) {
        if (isPlainObject(item)) countMessage(seen, targets, item);
      }
    }
  }
}

function countApprovals(targets: UsageSummary[], resume: unknown): void {
  if (!isPlainObject(resume)) return;
  for (const [key, answer] of Object.entries(resume)) {
    if (!key.startsWith(BUDGET_KEY_PREFIX) || !isPlainObject(answer) || answer.approve !== true)
      continue;
    for (const t of targets) {
      t.approved.tokens += num(answer.addTokens);
      t.approved.usd += num(answer.addCostUsd);
    }
  }
}

/**
 * Fold one event into `targets` (the summaries it counts in: the thread's, its run's, or
 * none); `seen` holds the answers already written by earlier events, which are not counted again.
 */
function foldInto(seen: Set<string>, targets: UsageSummary[], e: StoredEvent): void {
  const d = e.data;
  if (!isPlainObject(d)) return;
  if (e.type === "task_finished" || e.type === "step_committed")
    countUpdate(seen, targets, d.update);
  else if (e.type === "run_started") countApprovals(targets, d.resume);
}

function copySummary(s: UsageSummary): UsageSummary {
  const byModel: Record<string, UsageTotals> = {};
  for (const [k, v] of Object.entries(s.byModel)) ownKey(byModel, k, { ...v });
  return { usage: { ...s.usage }, byModel, approved: { ...s.approved } };
}

/**
 * Fold events into usage totals: every `AIMessage` with `usage` that a task wrote
 * (`task_finished`, `step_committed`), each counted once by its id (by the first event that
 * writes it; see {@link storedMessageKey}), with the model calls
 * middleware made in its step (`responseMetadata.middlewareCalls`, by their own model: a
 * `SummarizationMiddleware` summary is counted under the summary model). Messages in a run's input
 * or written by `updateState` are not counted (no model call made them here); a model call
 * that failed before its task stored a result is not in the log, so not counted.
 *
 * Every event given is folded to learn which answers were already written; only those first
 * written by the events the options select are counted. Pass the branch's events from its
 * start: an answer kept from before the events given would be counted as new.
 *
 * @param options.runId - count only the answers first written by this run.
 * @param options.afterSeq - count only the answers first written after this event (`seq`).
 * @example usageFromEvents(await store.read("t1", "main")).usage.totalTokens // 38
 * @example usageFromEvents(await store.read("t1", "main"), { runId }).usage.calls // 2
 */
export function usageFromEvents(
  events: readonly StoredEvent[],
  options: { runId?: string; afterSeq?: number } = {},
): UsageSummary {
  const summary = emptySummary();
  const seen = new Set<string>();
  const counted = [summary];
  for (const e of events) {
    const selected =
      (options.runId === undefined || e.runId === options.runId) &&
      (options.afterSeq === undefined || e.seq > options.afterSeq);
    foldInto(seen, selected ? counted : [], e);
  }
  return summary;
}

interface Entry {
  lastSeq: number;
  /** The answers counted so far on the branch (by {@link storedMessageKey}). */
  seen: Set<string>;
  thread: UsageSummary;
  runs: Map<string, UsageSummary>;
}

/**
 * Usage totals of threads, kept as running totals per branch: a call reads the branch's
 * `lastSeq` and only the events after the last one it folded (the first call on a branch
 * reads all of it). Everything follows from the stored events: a new ledger on a reopened
 * store gives the same totals. A fork's totals are its parent's up to the fork point plus its
 * own. It remembers at most `maxBranches` branches (the oldest is forgotten first).
 *
 * @example
 * ```ts
 * const ledger = new UsageLedger(store);
 * const { usage } = await ledger.thread("t1"); // { inputTokens: 30, outputTokens: 8, totalTokens: 38, ... }
 * ```
 */
export class UsageLedger {
  readonly #store: StateStore;
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;

  /** @param options.maxBranches - branches remembered; default 1000. */
  constructor(store: StateStore, options: { maxBranches?: number } = {}) {
    this.#store = store;
    this.#max = options.maxBranches ?? 1000;
  }

  async #entry(threadId: string, branchId: string): Promise<Entry> {
    const k = `${threadId}\u0000${branchId}`;
    let entry = this.#entries.get(k);
    const branch = await this.#store.getBranch(threadId, branchId);
    const lastSeq = branch?.lastSeq ?? 0;
    // A thread deleted and written again numbers its events from 1 again.
    if (entry === undefined || lastSeq < entry.lastSeq) {
      entry = { lastSeq: 0, seen: new Set(), thread: emptySummary(), runs: new Map() };
    }
    this.#entries.delete(k);
    this.#entries.set(k, entry);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    // An unknown branch other than "main": the store's read throws UnknownBranchError.
    if (branch === null && branchId !== "main") await this.#store.read(threadId, branchId);
    if (lastSeq === entry.lastSeq) return entry;
    const events = await this.#store.read(threadId, branchId, { afterSeq: entry.lastSeq });
    for (const e of events) {
      let run = entry.runs.get(e.runId);
      if (run === undefined) {
        run = emptySummary();
        entry.runs.set(e.runId, run);
      }
      foldInto(entry.seen, [entry.thread, run], e);
      entry.lastSeq = e.seq;
    }
    return entry;
  }

  /**
   * Totals of a thread's branch (default `"main"`); zeros for a thread with no events.
   * @throws UnknownBranchError (from the store) for a branch that does not exist.
   * @example (await ledger.thread("t1", "alt")).usage.totalTokens // 238000
   */
  async thread(threadId: string, branchId = "main"): Promise<UsageSummary> {
    return copySummary((await this.#entry(threadId, branchId)).thread);
  }

  /**
   * Totals of one run on a branch (the answers its own events first wrote: a resume is a run
   * of its own, and an answer an earlier run wrote that this run's update writes again is not
   * counted again); zeros for a run with no events there.
   * @throws UnknownBranchError (from the store) for a branch that does not exist.
   * @example (await ledger.run("t1", result.runId)).usage.calls // 2
   */
  async run(threadId: string, runId: string, branchId = "main"): Promise<UsageSummary> {
    const run = (await this.#entry(threadId, branchId)).runs.get(runId);
    return run === undefined ? emptySummary() : copySummary(run);
  }
}
