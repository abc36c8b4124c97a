/**
 * A `MemoryStateStore`'s branch leases (`acquireLease` … `releaseLease`), kept in its
 * {@link MemData} so its views see them. The arguments are checked by the store.
 *
 * @module
 */
import { keyOf, type MemData } from "./memory-data.js";

/**
 * Take the branch's lease for `owner` until `now + ttlMs`; `true` when taken or extended (same
 * owner), `false` when another owner holds an unexpired lease.
 */
export function acquire(
  data: MemData,
  threadId: string,
  branchId: string,
  owner: string,
  ttlMs: number,
  now: number,
): boolean {
  const key = keyOf(threadId, branchId);
  const held = data.leases.get(key);
  if (held && held.owner !== owner && held.expiresAt > now) return false;
  // A renewal keeps the owner's stop request; a new owner starts without one.
  const stopBy = held?.owner === owner ? held.stopBy : null;
  data.leases.set(key, { owner, expiresAt: now + ttlMs, stopBy });
  return true;
}

/** Extend `owner`'s lease (also an expired one) to `now + ttlMs`; `false` when not `owner`'s. */
export function renew(
  data: MemData,
  threadId: string,
  branchId: string,
  owner: string,
  ttlMs: number,
  now: number,
): boolean {
  const key = keyOf(threadId, branchId);
  const held = data.leases.get(key);
  if (held?.owner !== owner) return false;
  // A renewal keeps the owner's stop request.
  data.leases.set(key, { owner, expiresAt: now + ttlMs, stopBy: held.stopBy });
  return true;
}

/** Ask the holder of the unexpired lease to stop; the owner asked, or `null`. */
export function askStop(
  data: MemData,
  threadId: string,
  branchId: string,
  by: string,
  now: number,
): string | null {
  const held = data.leases.get(keyOf(threadId, branchId));
  if (!held || held.expiresAt <= now) return null;
  held.stopBy = by;
  return held.owner;
}

/** The run that asked `owner` to stop, or `null`. */
export function stopAsked(
  data: MemData,
  threadId: string,
  branchId: string,
  owner: string,
): string | null {
  const held = data.leases.get(keyOf(threadId, branchId));
  return held?.owner === owner ? held.stopBy : null;
}

/** Give the lease back; a no-op when `owner` does not hold it. */
export function release(data: MemData, threadId: string, branchId: string, owner: string): void {
  const key = keyOf(threadId, branchId);
  if (data.leases.get(key)?.owner === owner) data.leases.delete(key);
}
