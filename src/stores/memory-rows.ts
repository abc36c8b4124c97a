/**
 * The events of one branch of a `MemoryStateStore`, kept as text: each event is one record
 * `<head>\u0001<data>\u0002`, where `<data>` is the event's JSON text in its short form
 * (memory-text.ts: frequent pieces as one control character each) and `<head>` a short JSON
 * array without its brackets, `type,step,createdAt − epoch,run` (the type as its index in
 * {@link TYPES}; the run as its id on the first event of a run and after that as the index of
 * the event whose record holds it; `,taskId,node` follow when either is not `null`). JSON text
 * never holds a raw U+0001 or U+0002, so they delimit records unambiguously.
 *
 * Records are kept in a few long strings (segments) rather than a string and slots per event:
 * a new record starts a segment of its own, and the last two segments are joined into one
 * flat string while the last holds at least as many events as the one before it and their
 * text stays within {@link SEGMENT_CHARS} (a binary counter: each character is copied about
 * log2(events) times, and a branch of n events has O(log n) segments plus one per
 * {@link SEGMENT_CHARS} of text). On Node 20 x64 an idle branch then costs its events' text in
 * the short form (for a chat thread's events about 60% of their JSON) plus about 10 characters
 * an event and a few hundred bytes in all (memory-footprint.test.ts); an event costs a scan of
 * its segment to find, and reading one back the short form's expansion.
 *
 * @module
 */
import { EVENT_TYPES, type EventRow } from "./internal.js";
import { packJson, unpackJson } from "./memory-text.js";

/** Event types by their code in a record's head. */
const TYPES: readonly string[] = [...EVENT_TYPES];
const TYPE_CODE = new Map(TYPES.map((t, i) => [t, i]));

const HEAD_END = "\u0001";
const RECORD_END = "\u0002";

/** Segments are joined only while their joined text stays within this many characters. */
export const SEGMENT_CHARS = 1 << 18;

/** A branch's own events, in seq order. */
export interface RowLog {
  /** Records, in order, in a few strings. */
  segments: string[];
  /** Index of the first event of each segment. */
  firsts: number[];
  /** Events held. */
  count: number;
  /** Creation time of the branch's first event, in ms (the base of the stored times). */
  epoch: number;
  /** Run id of the last event, or `null` before the first. */
  lastRun: string | null;
  /** Index of the event whose record holds `lastRun`'s text. */
  lastRunAt: number;
}

/** An empty log. */
export function emptyRows(): RowLog {
  return { segments: [], firsts: [], count: 0, epoch: 0, lastRun: null, lastRunAt: 0 };
}

/** How many events the log holds. */
export function rowCount(log: RowLog): number {
  return log.count;
}

/** An event's columns a record holds besides its time (its `seq` is its place: not stored). */
export type RowColumns = Pick<EventRow, "type" | "runId" | "step" | "taskId" | "node" | "data">;

/** Add the event `row`, created at `createdAt` (ms), as the next one. */
export function pushRow(log: RowLog, row: RowColumns, createdAt: number): void {
  if (log.count === 0) log.epoch = createdAt;
  let run: string | number;
  if (row.runId === log.lastRun) run = log.lastRunAt;
  else {
    run = row.runId;
    log.lastRun = row.runId;
    log.lastRunAt = log.count;
  }
  // The text JSON.stringify makes of the head array, without the array (a third of pushRow's time).
  let head = `${item(TYPE_CODE.get(row.type) ?? row.type)},${item(row.step)},${item(createdAt - log.epoch)},${item(run)}`;
  if (row.taskId !== null || row.node !== null) head += `,${item(row.taskId)},${item(row.node)}`;
  // The record: the head, U+0001, the data in its short form, U+0002 (joined below).
  const packed = packJson(row.data);
  // The segments the new record is joined with (from `at` on): while the record and those
  // after `at` hold at least as many events as segment `at − 1`, and their text stays within
  // SEGMENT_CHARS, that one too (the binary counter of the module's description, found first
  // so that the record and the segments it joins are copied once, in one join).
  const { segments, firsts } = log;
  const count = log.count + 1;
  let at = segments.length;
  let first = log.count;
  let chars = head.length + packed.length + 2;
  while (at >= 1) {
    const before = first - firsts[at - 1]!;
    if (count - first < before || chars + segments[at - 1]!.length > SEGMENT_CHARS) break;
    at--;
    first = firsts[at]!;
    chars += segments[at]!.length;
  }
  // join, not +: a flat string, not a tree of concatenations.
  const tail = segments.length - at;
  const parts: string[] = new Array(tail + 4);
  for (let i = 0; i < tail; i++) parts[i] = segments[at + i]!;
  parts[tail] = head;
  parts[tail + 1] = HEAD_END;
  parts[tail + 2] = packed;
  parts[tail + 3] = RECORD_END;
  const joined = parts.join("");
  // New arrays of the exact length: a pushed-to array keeps room for 16 more elements, about
  // 270 bytes a branch for the two.
  const nextSegments: string[] = new Array(at + 1);
  const nextFirsts: number[] = new Array(at + 1);
  for (let i = 0; i < at; i++) {
    nextSegments[i] = segments[i]!;
    nextFirsts[i] = firsts[i]!;
  }
  nextSegments[at] = joined;
  nextFirsts[at] = first;
  log.segments = nextSegments;
  log.firsts = nextFirsts;
  log.count = count;
}

/** An item of a head as JSON text (what `JSON.stringify` writes for it inside an array). */
function item(v: string | number | null): string {
  return typeof v === "number" && Number.isFinite(v) ? `${v}` : JSON.stringify(v);
}

/** The head of the record at `pos` of `text`, whose head ends at `h`. */
function readHead(text: string, pos: number, h: number): Head {
  return JSON.parse(`[${text.slice(pos, h)}]`) as Head;
}

/** The `i`-th event (0-based) as a row with seq `seq`. */
export function rowAt(log: RowLog, i: number, seq: number): EventRow {
  const { seg, pos } = locate(log, i);
  return decode(log, log.segments[seg]!, pos, seq, null).row;
}

/** Events `from` … `to − 1` (0-based) as rows, the first with seq `firstSeq`. */
export function rowsBetween(log: RowLog, from: number, to: number, firstSeq: number): EventRow[] {
  const out: EventRow[] = [];
  if (from >= to) return out;
  let { seg, pos } = locate(log, from);
  const runs = new Map<number, string>();
  for (let i = from; i < to; i++) {
    if (seg + 1 < log.firsts.length && i === log.firsts[seg + 1]) {
      seg++;
      pos = 0;
    }
    const d = decode(log, log.segments[seg]!, pos, firstSeq + (i - from), runs);
    out.push(d.row);
    pos = d.next;
  }
  return out;
}

/** Segment of event `i` and the offset of its record there. */
function locate(log: RowLog, i: number): { seg: number; pos: number } {
  const { firsts } = log;
  let lo = 0;
  let hi = firsts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firsts[mid]! <= i) lo = mid;
    else hi = mid - 1;
  }
  const text = log.segments[lo]!;
  let pos = 0;
  for (let k = firsts[lo]!; k < i; k++) pos = text.indexOf(RECORD_END, pos) + 1;
  return { seg: lo, pos };
}

type Head = [
  number | string,
  number | null,
  number,
  string | number,
  (string | null)?,
  (string | null)?,
];

/** The record at `pos` of `text`, and where the next one starts. */
function decode(
  log: RowLog,
  text: string,
  pos: number,
  seq: number,
  runs: Map<number, string> | null,
): { row: EventRow; next: number } {
  const h = text.indexOf(HEAD_END, pos);
  const end = text.indexOf(RECORD_END, h);
  const head = readHead(text, pos, h);
  let runId: string;
  if (typeof head[3] === "string") runId = head[3];
  else {
    const at = head[3];
    let known = runs?.get(at);
    if (known === undefined) {
      const r = locate(log, at);
      const t = log.segments[r.seg]!;
      known = readHead(t, r.pos, t.indexOf(HEAD_END, r.pos))[3] as string;
      runs?.set(at, known);
    }
    runId = known;
  }
  const row: EventRow = {
    seq,
    type: typeof head[0] === "number" ? TYPES[head[0]]! : head[0],
    runId,
    step: head[1],
    taskId: head[4] ?? null,
    node: head[5] ?? null,
    createdAt: log.epoch + head[2],
    data: unpackJson(text.slice(h + 1, end)),
  };
  return { row, next: end + 1 };
}
