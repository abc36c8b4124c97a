/**
 * What the files of the `StateStore` contract suite share: the store under test, a peer store,
 * and small helpers (`ev`, `rejects`, `sleep`).
 */
import { expect } from "vitest";
import type { JsonValue } from "../../json/index.js";
import type { EventType, NewEvent, StateStore } from "../types.js";

/** The store under test (a new one for each test) and how to open a peer on its storage. */
export interface ContractContext {
  /** The current test's store. */
  store(): StateStore;
  /** A second store on the same storage (closed by the suite), or `null` when the store has none. */
  peer(): Promise<StateStore | null>;
}

/** A new event of `type` with `data`; the other fields default to run "r1", no step/task/node. */
export function ev(
  type: EventType,
  data: JsonValue,
  more: Partial<Omit<NewEvent, "type" | "data">> = {},
): NewEvent {
  return { type, runId: "r1", step: null, taskId: null, node: null, ...more, data };
}

/**
 * Make `store.acquireLease` run `before` once, the first time a deletion calls it (an owner
 * "delete-…": after the deletion listed the branches, before its transaction), so that another
 * connection acts at that point.
 */
export function onFirstLease(store: StateStore, before: () => Promise<void>): void {
  const own = store.acquireLease!.bind(store);
  let done = false;
  store.acquireLease = async (threadId, branchId, owner, ttlMs) => {
    if (!done && owner.startsWith("delete-")) {
      done = true;
      await before();
    }
    return own(threadId, branchId, owner, ttlMs);
  };
}

/** Await `p`, expect it to reject with an instance of `cls`, and return the error. */
export async function rejects<E extends Error>(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(cls);
    return e as E;
  }
  throw new Error(`expected a ${cls.name}, but the call succeeded`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
