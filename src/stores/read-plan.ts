/**
 * A read of a branch planned over its chain of parent branches, its options checked, and its
 * result checked for missing events. Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError } from "../errors/index.js";
import { checkSeq } from "./ids.js";
import { show } from "./show-value.js";
import type { StoredEvent } from "./types.js";

/** One part of a read: events of `branchId` with `after < seq ≤ upto`. */
export interface ReadSegment {
  branchId: string;
  after: number;
  upto: number;
}

/** A branch row as the chain resolution needs it. */
export interface ChainLink {
  branchId: string;
  parentBranch: string | null;
  parentSeq: number | null;
  lastSeq: number;
}

/**
 * The segments to read for a branch, root first, clipped to `afterSeq < seq ≤ uptoSeq`.
 *
 * The seqs of a chain are 1…lastSeq without a gap (each fork starts at its parent seq + 1),
 * so the result of a read is exactly the seqs `from + 1 … to` returned alongside.
 *
 * @param chain - the branch first, then its parent, its parent's parent…
 */
export function planRead(
  chain: readonly ChainLink[],
  afterSeq: number,
  uptoSeq: number,
): { segments: ReadSegment[]; from: number; to: number } {
  const segments: ReadSegment[] = [];
  let upto = chain[0]?.lastSeq ?? 0;
  const to = Math.min(upto, uptoSeq);
  for (const link of chain) {
    const after = link.parentSeq ?? 0;
    const lo = Math.max(after, afterSeq);
    const hi = Math.min(upto, uptoSeq);
    if (hi > lo) segments.push({ branchId: link.branchId, after: lo, upto: hi });
    upto = after;
  }
  segments.reverse();
  return { segments, from: Math.min(afterSeq, to), to };
}

/**
 * Check that a read returned the seqs `from + 1 … to` in order.
 * @throws StateStoreError when an event is missing (a damaged store).
 */
export function checkContiguous(
  threadId: string,
  branchId: string,
  events: readonly StoredEvent[],
  from: number,
  to: number,
): void {
  const want = Math.max(0, to - from);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.seq !== from + 1 + i) {
      throw new StateStoreError(
        `Thread "${threadId}" branch "${branchId}" is damaged: event ${from + 1 + i} is missing from the log (found ${e.id}). Restore the store from a backup.`,
        { threadId, branchId },
      );
    }
  }
  if (events.length !== want) {
    throw new StateStoreError(
      `Thread "${threadId}" branch "${branchId}" is damaged: event ${from + 1 + events.length} is missing from the log. Restore the store from a backup.`,
      { threadId, branchId },
    );
  }
}

/**
 * Read options checked, with defaults (`0` and `Infinity`).
 * @throws TypeError for options that are not an object, or with a key other than `afterSeq`
 *   and `uptoSeq` (`{ after: 2 }` would read everything): `read: unknown option "after"; the
 *   options are "afterSeq", "uptoSeq"`. StateStoreError for a bound that is not an integer ≥ 0.
 */
export function readBounds(
  threadId: string,
  branchId: string,
  options?: { afterSeq?: number; uptoSeq?: number },
): { afterSeq: number; uptoSeq: number } {
  if (options !== undefined) checkReadOptions(options);
  const afterSeq = options?.afterSeq ?? 0;
  const uptoSeq = options?.uptoSeq ?? Number.MAX_SAFE_INTEGER;
  checkSeq(afterSeq, "afterSeq", threadId, branchId);
  checkSeq(uptoSeq, "uptoSeq", threadId, branchId);
  return { afterSeq, uptoSeq };
}

/** Refuse read options that are not an object or have an unknown key (no allocation otherwise). */
function checkReadOptions(options: unknown): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(
      `read: options must be an object with "afterSeq" and/or "uptoSeq", got ${options === null ? "null" : Array.isArray(options) ? "an array" : show(options)}`,
    );
  }
  for (const key in options) {
    if (key !== "afterSeq" && key !== "uptoSeq") {
      throw new TypeError(`read: unknown option "${key}"; the options are "afterSeq", "uptoSeq"`);
    }
  }
}
