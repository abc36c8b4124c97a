/**
 * What the two sides of the benchmark share: workload names, the figures a worker prints, the
 * fake model's script, and measuring helpers.
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Which implementation a worker runs. */
export type Impl = "nodestep" | "langgraph";

/**
 * The workloads of issue 8, issue 15's conversation with images (`parts`, nodestep only), and
 * issue 20's graph shapes (`wide`, `long`: bench/shapes-*.ts) and many threads at once
 * (`threads`: bench/threads-*.ts).
 */
export type Workload =
  | "loop"
  | "react"
  | "thread"
  | "fanout"
  | "fanout-limit"
  | "parts"
  | "wide"
  | "long"
  | "threads";

/** Where a run keeps its state: nowhere, in memory, in an SQLite file, or in PostgreSQL. */
export type StoreKind = "none" | "memory" | "sqlite" | "postgres";

/** One workload to run: what, on which store, at which size. */
export interface Case {
  workload: Workload;
  store: StoreKind;
  param: number;
}

/** Figures of one sampled turn of a thread (issue 3: turns 10, 100 and 1,000). */
export interface TurnSample {
  turn: number;
  /** Median time of the invokes of turns turn-4..turn, in µs. */
  usPerTurn: number;
  /** Bytes the store held after this turn. */
  bytesStored: number;
  /** Bytes this one turn added to the store. */
  bytesWritten: number;
}

/** The JSON line a worker prints: every figure of one run. Fields that do not apply are absent. */
export interface Figures {
  impl: Impl;
  workload: Workload;
  store: StoreKind;
  param: number;
  /** Wall time of the measured part, in ms (warm-up excluded). */
  totalMs: number;
  /**
   * CPU time (user + system) of the worker over the measured run, store setup included, in ms
   * (per invoke for wide and long; for thread, the invokes of the last 10% of turns, the turns
   * its figure is taken from); less sensitive than wall time to other load on the machine.
   */
  cpuMs: number;
  /** loop: µs per superstep. */
  usPerStep?: number;
  /** react: µs per model turn. */
  usPerTurn?: number;
  /** thread: median µs per invoke over the last 10% of turns. */
  usPerInvoke?: number;
  /** How many measured runs the worker's figures are the median of (bench/common.ts, `measureRuns`). */
  runsMeasured?: number;
  /** wide / long: fields of the state, nodes of the graph. */
  fields?: number;
  nodes?: number;
  /** wide / long: invokes in each measured run (each run goes on for {@link SHAPES}.minRunMs). */
  invokes?: number;
  /** threads: how many threads, turns per second over the whole run. */
  threads?: number;
  turnsPerSec?: number;
  /** threads: heap each idle thread keeps after the run (all threads finished, garbage collected), in bytes. */
  idleBytesPerThread?: number;
  /** threads: the heap a copy of one thread's final messages takes on its own, in bytes. */
  messagesHeapBytesPerThread?: number;
  /**
   * threads: {@link idleBytesPerThread} less what the process holds of the messages: the
   * store's own text of the threads' events (a memory store's logical bytes: every event's
   * JSON and fields, not only the messages'), and the heap of the message lists a graph keeps.
   */
  idleBytesPerThreadBeyondMessages?: number;
  /**
   * threads: the stricter figure: {@link idleBytesPerThread} less the messages' own JSON text
   * (once, for a store in the process's memory) and the heap of the message lists a graph
   * keeps; the events' framing (types, run ids, times, `next`, ids) counts as beyond.
   */
  idleBytesPerThreadBeyondMessageText?: number;
  /** threads: CPU time (user + system) of the conversations (the pool only) per turn, in µs. */
  cpuUsPerTurn?: number;
  /** threads: RSS growth over the run, per thread, in kB. */
  rssGrowthKbPerThread?: number;
  /** Peak resident set size of the worker process, in MB (`process.resourceUsage().maxRSS`). */
  peakRssMb: number;
  /**
   * Bytes the store holds at the end. Memory store: nodestep `sizeBytes()`, LangGraph the
   * serialized checkpoints and writes of `MemorySaver`. SQLite: the file after a
   * `wal_checkpoint(TRUNCATE)` (the write-ahead log copied in and emptied). PostgreSQL:
   * `pg_total_relation_size` of the schema's tables.
   */
  bytesStored?: number;
  /** nodestep only: the store's own logical count (`sizeBytes()`), for the file-based stores. */
  logicalBytes?: number;
  /** UTF-8 bytes of `JSON.stringify` of the final message list (each side's own message objects). */
  messagesJsonBytes?: number;
  /** Number of messages in the final state (a check that both sides did the same work). */
  messages?: number;
  /** fanout: length of the final list (a check). */
  items?: number;
  /** thread: figures at turns 10, 100, 1,000 (those ≤ T) and T. */
  samples?: TurnSample[];
  /** thread (LangGraph.js's, T ≥ 1,000): the turns written in one update, not invoked (see `seedRange`). */
  seededTurns?: SeedRange;
  /** parts: median µs of the turns that send an image. */
  usPerImageTurn?: number;
  /** parts: median µs of the other (text-only) turns. */
  usPerTextTurn?: number;
  /** parts: how many images the conversation sent. */
  images?: number;
  /** parts: the images' base64 data, in bytes, all together (each counted once). */
  imageBytes?: number;
  /** parts: how many times the images' data is in the store (event log and snapshot), all together; once each is {@link images}. */
  imageCopies?: number;
}

/**
 * Issue 20's graph shapes: `wide` runs this many nodes, `long` this many fields; each measured
 * run invokes the graph (on a new thread each time) until `minRunMs` have gone, at least
 * once, and reports the mean per step and per invoke. One invoke of 300 supersteps takes under
 * a millisecond on nodestep: five runs of one invoke each were at the mercy of where a garbage
 * collection landed (the 200-field figure varied by 40% between full runs). LangGraph.js's
 * invokes take longer than `minRunMs`, so its runs stay one invoke each.
 */
export const SHAPES = { wideNodes: 300, longFields: 1, minRunMs: 20 } as const;

/**
 * Call `once` until `minMs` have gone (at least once); its time summed over the calls, their
 * count, and the last call's answer.
 */
export async function repeatFor<T>(
  minMs: number,
  once: () => Promise<T>,
): Promise<{ totalMs: number; count: number; last: T }> {
  let totalMs = 0;
  let count = 0;
  let last: T;
  do {
    const t0 = performance.now();
    last = await once();
    totalMs += performance.now() - t0;
    count++;
  } while (totalMs < minMs);
  return { totalMs, count, last };
}

/** Issue 20's `threads` workload: turns per conversation, conversations at a time, the texts. */
export const SCRIPT_THREADS = {
  turns: 10,
  concurrency: 100,
  user: (thread: number, turn: number): string =>
    `Thread ${thread}, turn ${turn}: please look this up.`,
  /** The model's answer when the request has `n` messages. */
  answer: (n: number): string => `Looked it up; this answer follows message ${n}.`,
} as const;

/**
 * Run `work(0)` … `work(n - 1)`, at most `concurrency` at a time (each worker takes the next
 * index when its previous one is done); rejects with the first failure.
 */
export async function runPool(
  n: number,
  concurrency: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

let gcFn: (() => void) | null = null;

/** Bytes of heap in use after a full garbage collection (`--expose-gc` set at run time). */
export function heapBytesAfterGc(): number {
  if (gcFn === null) {
    setFlagsFromString("--expose-gc");
    gcFn = runInNewContext("gc") as () => void;
  }
  gcFn();
  gcFn();
  return process.memoryUsage().heapUsed;
}

/** Peak RSS of this process so far, in MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** UTF-8 length of a value's JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** Size of a file plus its `-wal`, in bytes (0 for missing files). */
export function sqliteFileBytes(path: string): number {
  let n = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // missing: 0
    }
  }
  return n;
}

/** A fresh temporary directory and a function that removes it. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The PostgreSQL server of this machine. */
export const POSTGRES_URL =
  process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema name for one run. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.floor(Math.random() * 1e9).toString(36)}`;
}

/** The fake model's script, the same on both sides. */
export const SCRIPT = {
  /** The user's message of a ReAct run. */
  question: "Look up every item, then say you are done.",
  /** Tool name and description. */
  toolName: "lookup",
  toolDescription: "Look up an item by name.",
  /** The trivial tool: its result for argument `q`. */
  toolResult: (q: string): string => `found ${q}`,
  /** ReAct turn n (1-based) of K: a tool call on turns 1..K-1. */
  toolCallId: (n: number): string => `call_${n}`,
  toolArgs: (n: number): { q: string } => ({ q: `item ${n}` }),
  /** The answer of the last ReAct turn. */
  finalAnswer: (k: number): string => `Done after ${k} turns.`,
  /** The parts workload: an image with turn t when t is a multiple of this. */
  imageEvery: 10,
  /** The parts workload: base64 characters of each image. */
  imageChars: 100_000,
  /** The user's message and the model's answer of chat turn t of a thread. */
  userTurn: (t: number): string => `This is user message number ${t}. Please answer briefly.`,
  answerTurn: (t: number): string => `This is answer number ${t}, kept brief as you asked.`,
} as const;

/** The turns at which a thread run samples its figures: 10, 100, 1,000 (those ≤ T) and T. */
export function sampleTurns(t: number): number[] {
  return [...new Set([10, 100, 1000, t].filter((x) => x <= t))].sort((a, b) => a - b);
}

/**
 * The fan-out workload's reducer, the same on both sides: it appends in place (after the
 * first update, so the field's default array is never changed). With `a.concat(b)` both
 * sides would spend O(N²) copying the list, and the figure would measure that instead of the
 * engine's fan-out.
 */
export function appendInPlace(a: number[], b: number[]): number[] {
  const out = a.length === 0 ? [] : a;
  for (const x of b) out.push(x);
  return out;
}

/** Median of numbers (0 for none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Time of the invokes of turns turn-4..turn (1-based) in µs, as a median. */
export function windowUs(timesMs: readonly number[], turn: number): number {
  const from = Math.max(0, turn - 5);
  return median(timesMs.slice(from, turn)) * 1000;
}

/** How many turns of a thread of `turns` its figure is taken from: the last 10% (at least one). */
export function tailTurns(turns: number): number {
  return Math.max(1, Math.round(turns / 10));
}

/** Median µs per invoke over the last 10% of turns ({@link tailTurns}). */
export function tailUs(timesMs: readonly number[]): number {
  const n = tailTurns(timesMs.length);
  return median(timesMs.slice(-n)) * 1000;
}

/** The largest warm-up run of a workload (runs of the same shape before the measured one). */
export function warmupCap(workload: Workload): number {
  switch (workload) {
    case "loop":
      // LangGraph.js's loop of 10,000 steps takes 7 s: warming up on one (the cap was 10,000)
      // doubled its child's time; runs of 1,000 leave both sides' figures as they were.
      return 1000;
    case "react":
      return 200;
    case "thread":
    case "parts":
      return 20;
    case "fanout":
      return 1000;
    case "fanout-limit":
      // Its param is the limit (N is 10,000): the warm-up runs the same limit.
      return 10000;
    case "wide":
    case "long":
      // The same shape (param is the fields or the nodes).
      return 1000;
    case "threads":
      return 100;
  }
}

/**
 * Warm up a process the same way on both sides: run the workload at min(param, cap) at least
 * three times and until 300 ms have gone, stopping once two seconds have gone (V8 reaches its
 * optimized code only after some time in the hot code: a run of a few ms needs many; a slow
 * implementation gets fewer warm-up runs but a longer measured one). `minRuns` and `maxMs`
 * raise both bounds for a workload whose code takes longer to reach its optimized form.
 */
export async function warmUp(
  once: (param: number) => Promise<unknown>,
  param: number,
  cap: number,
  minRuns = 3,
  maxMs = 2000,
): Promise<void> {
  if (cap <= 0) return;
  const size = Math.min(param, cap);
  const t0 = performance.now();
  for (let i = 0; ; i++) {
    const elapsed = performance.now() - t0;
    if (elapsed >= maxMs || (i >= minRuns && elapsed >= 300)) break;
    await once(size);
  }
}

/** How many measured runs a worker makes at most, and for how long it goes on making them. */
export const MEASURE = { maxRuns: 5, budgetMs: 3000 } as const;

/**
 * The measured part of a worker, the same on both sides: after the warm-up, run the workload at
 * `param` several times (at least once, at most {@link MEASURE}.maxRuns, and no new run once
 * {@link MEASURE}.budgetMs have gone), each run timed in CPU time too (per invoke for a run
 * that reports `invokes`), and return the
 * elementwise median of the runs' figures (`cpuMs` the median of the runs' CPU times; `samples`
 * per sampled turn; `runsMeasured` how many runs). One run of a few ms is at the mercy of a
 * garbage collection or a JIT compilation landing in it; the median of several is not.
 */
export async function measureRuns(
  once: () => Promise<Partial<Figures>>,
): Promise<Partial<Figures> & { cpuMs: number; runsMeasured: number }> {
  const runs: Array<Partial<Figures> & { cpuMs: number }> = [];
  const t0 = performance.now();
  while (
    runs.length === 0 ||
    (runs.length < MEASURE.maxRuns && performance.now() - t0 < MEASURE.budgetMs)
  ) {
    const cpu0 = process.cpuUsage();
    const figures = await once();
    const cpu = process.cpuUsage(cpu0);
    // Per invoke, as the run's other figures are, where a run invokes several times (wide, long);
    // a workload that measures its own (thread: the last 10% of turns) keeps it.
    const cpuMs = figures.cpuMs ?? (cpu.user + cpu.system) / 1000 / (figures.invokes ?? 1);
    runs.push({ ...figures, cpuMs });
  }
  return { ...medianFigures(runs), runsMeasured: runs.length };
}

/** Elementwise median of figures: every numeric field, and `samples` turn by turn. */
export function medianFigures<T extends Partial<Figures>>(runs: T[]): T {
  const first = runs[0]!;
  const out: Record<string, unknown> = { ...first };
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === "number")
      out[key] = median(runs.map((r) => (r as Record<string, unknown>)[key] as number));
  }
  if (first.samples) {
    out.samples = first.samples.map((s, i): TurnSample => {
      const at = (f: keyof TurnSample) => median(runs.map((r) => r.samples?.[i]?.[f] ?? 0));
      return {
        turn: s.turn,
        usPerTurn: at("usPerTurn"),
        bytesStored: at("bytesStored"),
        bytesWritten: at("bytesWritten"),
      };
    });
  }
  return out as T;
}

/**
 * Turns `from` … `to` (both included) of a thread that are written in one state update, not
 * invoked one by one (see {@link seedRange}).
 */
export interface SeedRange {
  from: number;
  to: number;
}

/** The environment variable that turns seeding off (`npm run bench -- --full-threads` sets it). */
export const FULL_THREADS_ENV = "BENCH_FULL_THREADS";

/**
 * The turns of LangGraph.js's `thread` workload that it writes in one `updateState` (untimed)
 * instead of invoking them: turns 101 … T − T/10 when T ≥ {@link SEED_MIN_TURNS}, none otherwise
 * or when {@link FULL_THREADS_ENV} is `"1"`. Turns 1–100 (the samples at 10 and 100) and the
 * last 10% (the figure, and the sample at T) are invoked and timed as always.
 *
 * Why: LangGraph.js's invoke on a thread costs time linear in the turn (it writes the whole
 * message list at every superstep), so driving 1,000 turns one by one costs it 110–200 s per
 * store, a third of `npm run bench`, for a figure taken from the last 100. Written at once, the
 * thread holds the same messages (the same texts and types, ids from the same reducer) and
 * fewer checkpoints of the turns before; an invoke at turn 900–1,000 then reads and writes
 * what it would have (its latest checkpoint), with less history in the saver's memory or file
 * (a smaller heap for its collector: if anything, faster). nodestep's side invokes every turn.
 */
export function seedRange(turns: number): SeedRange | null {
  if (turns < SEED_MIN_TURNS || process.env[FULL_THREADS_ENV] === "1") return null;
  return { from: 101, to: turns - tailTurns(turns) };
}

/** The shortest thread {@link seedRange} seeds. */
export const SEED_MIN_TURNS = 1000;

/**
 * Drive a thread workload: `invokeTurn(t)` runs chat turn t; `size()` reads the bytes stored;
 * with `seed`, turns `seed.range` are written at once by `seed.write(from, to)` (untimed; their
 * entries of `timesMs` are NaN, and none of them is sampled).
 * Returns the per-invoke times (one entry a turn), the samples of issue 3, the time of the
 * invoked turns, and the CPU time of the invokes of the last 10% of turns (those
 * {@link tailUs} takes; the size reads between them not counted).
 */
export async function driveThread(
  turns: number,
  invokeTurn: (t: number) => Promise<void>,
  size: () => Promise<number>,
  seed?: { range: SeedRange; write: (from: number, to: number) => Promise<void> },
): Promise<{ timesMs: number[]; samples: TurnSample[]; totalMs: number; tailCpuMs: number }> {
  const tailFrom = turns - tailTurns(turns) + 1;
  let tailCpuUs = 0;
  const wanted = new Set(sampleTurns(turns));
  if (seed) {
    for (const w of wanted) {
      if (w >= seed.range.from - 1 && w <= seed.range.to + 1 && w !== seed.range.from - 1)
        throw new Error(`driveThread: sampled turn ${w} is next to the seeded turns`);
    }
  }
  const sizes = new Map<number, number>();
  sizes.set(0, await size());
  const timesMs: number[] = [];
  let totalMs = 0;
  for (let t = 1; t <= turns; t++) {
    if (seed && t === seed.range.from) {
      await seed.write(seed.range.from, seed.range.to);
      for (; t <= seed.range.to; t++) timesMs.push(Number.NaN);
      t = seed.range.to;
      continue;
    }
    const cpu0 = t >= tailFrom ? process.cpuUsage() : undefined;
    const t0 = performance.now();
    await invokeTurn(t);
    const ms = performance.now() - t0;
    if (cpu0) {
      const cpu = process.cpuUsage(cpu0);
      tailCpuUs += cpu.user + cpu.system;
    }
    timesMs.push(ms);
    totalMs += ms;
    // Read the size outside the timed part, before and after each sampled turn.
    if (wanted.has(t) || wanted.has(t + 1)) sizes.set(t, await size());
  }
  const samples = [...wanted].map((turn) => {
    const after = sizes.get(turn) ?? 0;
    return {
      turn,
      usPerTurn: windowUs(timesMs, turn),
      bytesStored: after,
      bytesWritten: after - (sizes.get(turn - 1) ?? 0),
    };
  });
  return { timesMs, samples, totalMs, tailCpuMs: tailCpuUs / 1000 };
}
