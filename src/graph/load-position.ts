/**
 * Loading a branch's position: the graph's in-memory position when it is current, else the
 * branch's snapshot plus the events after it, folded (`foldEvents`). A run's load that folds a
 * long tail writes a snapshot (large parts that events hold kept as references); a read
 * (`getState`) writes nothing.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/index.js";
import { nodeCrypto } from "../lazy.js";
import { initialState, type StateDefinition } from "../state/define-state.js";
import type { StateStore } from "../stores/types.js";
import { coldMode } from "./cold-mode.js";
import {
  hasPartRefs,
  isSnapshotOf,
  positionOf,
  snapshotData,
  withPartRefs,
} from "./snapshot-format.js";
import {
  hasBigPart,
  indexParts,
  type PartIndex,
  resolveParts,
  shrinkParts,
} from "./snapshot-parts.js";
import { emptyPosition, foldEvents, type ThreadPosition } from "./thread-state.js";

/** A folded position and the seq of the branch's snapshot it was last compared with. */
export interface CachedPosition {
  position: ThreadPosition;
  snapshotSeq: number;
  /** When the position cache last remembered it (its own count; position-cache.ts), if it did. */
  remembered?: number;
}

/**
 * Load a branch's position: the process cache when it is current, else the snapshot plus the
 * tail. With `keep` (a run's load, the default), a load that folded {@link SNAPSHOT_AFTER_EVENTS}
 * events or more writes a snapshot; a read (`getState`: `keep` false) never writes, so reading
 * a thread costs what it reads and works on a store another process writes.
 */
export async function loadPosition(
  store: StateStore,
  def: StateDefinition | null,
  threadId: string,
  branchId: string,
  cache: Map<string, CachedPosition> | null,
  keep = true,
): Promise<CachedPosition> {
  const key = `${threadId}\u0000${branchId}`;
  const branch = await store.getBranch(threadId, branchId);
  const cached = coldMode.on ? undefined : cache?.get(key);
  if (cached && branch && cached.position.lastSeq === branch.lastSeq) return cached;
  const snapshot = branch ? await store.loadSnapshot(threadId, branchId) : null;
  // The empty position (the definition's defaults, made by zod) only when no snapshot is used.
  let base: ThreadPosition | null = null;
  let snapshotSeq = 0;
  const folder = definitionKey(def);
  const parts: PartIndex = new Map();
  if (snapshot && isSnapshotOf(snapshot.data, folder)) {
    // A snapshot that refers to parts held by events reads them back, and one with packed fields
    // unpacks them; if it cannot, it is not used.
    const data = hasPartRefs(snapshot.data)
      ? await resolveParts(snapshot.data, store, threadId, branchId, parts)
      : snapshot.data;
    const position = data === null ? null : positionOf(def, data as JsonObject);
    if (position !== null) {
      base = position;
      snapshotSeq = snapshot.seq;
    }
  }
  const events = await store.read(
    threadId,
    branchId,
    snapshotSeq > 0 ? { afterSeq: snapshotSeq } : {},
  );
  const position = foldEvents(def, base ?? emptyPosition(def), events);
  if (keep && events.length >= SNAPSHOT_AFTER_EVENTS && branch) {
    // This run's load had to fold a long tail: keep a snapshot so the next cold load does not.
    // Large parts that events of the branch hold are kept as references, not repeated.
    try {
      indexParts(events, parts);
      const data = snapshotData(def, position, folder);
      const shrunk = shrinkParts(data, parts);
      await store.saveSnapshot(threadId, branchId, {
        seq: position.lastSeq,
        data: shrunk === null ? data : withPartRefs(shrunk as JsonObject),
      });
      snapshotSeq = position.lastSeq;
    } catch {
      // A snapshot only saves time; a failed one changes nothing.
    }
  }
  return { position, snapshotSeq };
}

/**
 * A run that ended its branch at this many events or more, on a branch that holds no snapshot
 * yet, writes the first one (see {@link snapshotAfterRun}). A snapshot repeats what
 * the events already hold (a chat thread's messages), so it is kept only for long threads: a
 * thread shorter than this (a ReAct run of up to about 2,000 turns) holds no snapshot, and its
 * stored bytes stay the events' (issue 8: ≤ 1.5× the final messages' JSON); a longer one holds
 * one snapshot (one per branch, replaced), renewed as {@link snapshotDue} says.
 */
export const SNAPSHOT_AFTER_RUN_EVENTS = 4096;

/**
 * Once a branch holds a snapshot and is {@link SNAPSHOT_AFTER_RUN_EVENTS} events long, a run
 * renews it when the branch grew past it by at least this many events and
 * {@link SNAPSHOT_TAIL_SHARE} of its length.
 */
export const SNAPSHOT_RENEW_EVENTS = 512;

/**
 * A renewed snapshot is kept when the events after the last one are at least this fraction
 * (1/n) of the branch (and {@link SNAPSHOT_RENEW_EVENTS}).
 */
export const SNAPSHOT_TAIL_SHARE = 16;

/**
 * Whether a run that ended its branch at `lastSeq` keeps a snapshot, the branch's last one
 * being at `snapshotSeq` (0: none): none before the branch is {@link SNAPSHOT_AFTER_RUN_EVENTS}
 * events long (even when a load kept one earlier), then each time the tail after the last
 * reaches {@link SNAPSHOT_RENEW_EVENTS} events and a {@link SNAPSHOT_TAIL_SHARE}th of the
 * branch (the first at once when there is none). So the tail a new process folds stays at most
 * about 1/16 of the thread (on a 10,000-event thread, some 600 events, where it was up to
 * 4,096: the fold of the tail, event by event and JIT-cold, costs several times what parsing
 * the same messages in the snapshot costs); and renewing it costs the same per event however
 * long the thread is (the state of an n-event thread written every n/16 events: about 16 times
 * the state's bytes per event, once a thread is long enough to hold one). Stored bytes do not
 * grow: each branch keeps one snapshot, replaced.
 */
export function snapshotDue(lastSeq: number, snapshotSeq: number): boolean {
  // (A load's early snapshot is not renewed before then: each renewal is a copy of the whole
  // state, and a shorter branch's stored bytes stay about its events', issue 8.)
  if (lastSeq < SNAPSHOT_AFTER_RUN_EVENTS) return false;
  const tail = lastSeq - snapshotSeq;
  return tail >= SNAPSHOT_RENEW_EVENTS && tail * SNAPSHOT_TAIL_SHARE >= lastSeq;
}

/**
 * After a run that completed: when the branch grew past its snapshot as {@link snapshotDue}
 * says, keep a snapshot of the run's final position (the position the run's
 * events fold to: the next warm run continues from the same object). A position that holds a
 * large binary part is not kept so (the run does not know which events hold its parts; the
 * next run's cold load folds and keeps a snapshot that refers to them). Best effort, like every
 * snapshot: a failed write changes nothing.
 * @returns the seq of the branch's snapshot afterwards.
 */
export async function snapshotAfterRun(
  store: StateStore,
  def: StateDefinition | null,
  threadId: string,
  branchId: string,
  cached: CachedPosition,
): Promise<number> {
  const { position, snapshotSeq } = cached;
  if (!snapshotDue(position.lastSeq, snapshotSeq)) return snapshotSeq;
  // (Every field a fold sets, as a fold of the events sets it: the run's object leaves out
  // the ones that stayed empty.)
  const whole: ThreadPosition = {
    ...emptyPosition(def),
    ...position,
    breakpoint: position.breakpoint ?? null,
    passed: position.passed ?? null,
  };
  if (hasBigPart(whole as unknown as JsonValue)) return snapshotSeq;
  const data = snapshotData(def, whole, definitionKey(def));
  try {
    await store.saveSnapshot(threadId, branchId, { seq: position.lastSeq, data });
    return position.lastSeq;
  } catch {
    return snapshotSeq;
  }
}

/** A load that folds at least this many events writes a snapshot. */
export const SNAPSHOT_AFTER_EVENTS = 64;

const definitionKeys = new WeakMap<StateDefinition, string>();

/**
 * A short key of what folding depends on in `def`: each field's name, reducer and codec, and
 * whether it starts with a value. Not the initial values themselves: a default made by a
 * function (a time, an id) differs from one call to the next, and a snapshot holds the values
 * the thread started with.
 */
function definitionKey(def: StateDefinition | null): string {
  if (def === null) return "plain";
  let key = definitionKeys.get(def);
  if (key === undefined) {
    const initial = initialState(def);
    const fields = [...def.fields.values()].map((f) => [
      f.name,
      f.reducer ? String(f.reducer) : null,
      f.codec ? [String(f.codec.encode), String(f.codec.decode)] : null,
      Object.hasOwn(initial, f.name),
    ]);
    key = nodeCrypto()
      .createHash("sha256")
      .update(JSON.stringify(fields))
      .digest("base64url")
      .slice(0, 22);
    definitionKeys.set(def, key);
  }
  return key;
}
