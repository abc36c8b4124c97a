/**
 * Thread, branch and event ids of the built-in state stores: their form, their checks, and
 * new branch ids. Internal (see `internal.ts`).
 *
 * @module
 */
import { StateStoreError } from "../errors/index.js";
import { nodeCrypto } from "../lazy.js";
import { show } from "./show-value.js";

/** The branch every thread starts with. */
export const MAIN_BRANCH = "main";

/** `"<threadId>/<branchId>/<seq>"`. */
export function eventId(threadId: string, branchId: string, seq: number): string {
  return `${threadId}/${branchId}/${seq}`;
}

/**
 * Split an event id into its parts. Branch ids never contain `/`, so the last two segments
 * are the branch and the seq and the rest is the thread id (which may contain `/`).
 * @returns `null` when the id is not of that form.
 */
export function parseEventId(
  id: string,
): { threadId: string; branchId: string; seq: number } | null {
  if (typeof id !== "string") return null;
  const last = id.lastIndexOf("/");
  if (last <= 0) return null;
  const mid = id.lastIndexOf("/", last - 1);
  if (mid <= 0) return null;
  const seqText = id.slice(last + 1);
  if (!/^[1-9][0-9]{0,15}$/.test(seqText)) return null;
  const seq = Number(seqText);
  if (!Number.isSafeInteger(seq)) return null;
  const branchId = id.slice(mid + 1, last);
  if (branchId === "") return null;
  return { threadId: id.slice(0, mid), branchId, seq };
}

/**
 * Whether `threadId` is one {@link checkThreadId} accepts: a read of an id no thread can have
 * answers "nothing" (`null`, `[]`) without asking the database (PostgreSQL refuses text with
 * a NUL character, and turns a lone surrogate into U+FFFD, another thread's id).
 */
export function isThreadId(threadId: unknown): boolean {
  return (
    typeof threadId === "string" &&
    threadId !== "" &&
    !threadId.includes("\u0000") &&
    (threadId as string & { isWellFormed(): boolean }).isWellFormed()
  );
}

/** Throw `StateStoreError` unless `threadId` is a non-empty string. */
export function checkThreadId(threadId: string): void {
  if (typeof threadId !== "string" || threadId === "") {
    throw new StateStoreError(`A thread id must be a non-empty string, got ${show(threadId)}`);
  }
  if (
    threadId.includes("\u0000") ||
    !(threadId as string & { isWellFormed(): boolean }).isWellFormed()
  ) {
    throw new StateStoreError(
      `A thread id must be well-formed text without NUL characters or lone surrogates, got ${JSON.stringify(threadId)}`,
    );
  }
}

/**
 * Throw `StateStoreError` unless `branchId` is a non-empty string without `/`, NUL characters
 * or lone surrogates (which SQLite and PostgreSQL cannot keep as given).
 */
export function checkBranchId(threadId: string, branchId: string): void {
  if (
    typeof branchId !== "string" ||
    branchId === "" ||
    branchId.includes("/") ||
    branchId.includes("\u0000") ||
    !(branchId as string & { isWellFormed(): boolean }).isWellFormed()
  ) {
    throw new StateStoreError(
      `A branch id must be a non-empty string without "/", NUL characters or lone surrogates, got ${show(branchId)}`,
      { threadId },
    );
  }
}

/** Throw `StateStoreError` unless `n` is a safe integer ≥ 0; `what` names it in the message. */
export function checkSeq(n: unknown, what: string, threadId?: string, branchId?: string): void {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new StateStoreError(`${what} must be an integer ≥ 0, got ${show(n)}`, {
      threadId,
      branchId,
      field: what,
    });
  }
}

/** A new branch id: `b-` and 12 random hex digits. */
export function newBranchId(): string {
  return `b-${nodeCrypto().randomBytes(6).toString("hex")}`;
}
