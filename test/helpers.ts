import { expect } from "vitest";

/** Run `fn` (sync or async) and return what it threw; fails the test when it did not throw. */
export async function caught(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  expect.fail("expected an error to be thrown");
}

/** Assert that `fn` throws an instance of `type` with exactly `message`; returns the error. */
export async function expectError<T extends Error>(
  fn: () => unknown,
  type: abstract new (...args: never[]) => T,
  message: string,
): Promise<T> {
  const e = await caught(fn);
  expect(e).toBeInstanceOf(type);
  expect(e.message).toBe(message);
  return e as T;
}

/** A gate a node, a model call or a tool waits at, opened by the test. */
export interface Gate {
  /** Resolves once something waits at the gate. */
  entered: Promise<void>;
  /** Let what waits (and what comes later) through. */
  open(): void;
  /** Wait at the gate: resolves once it is open. */
  wait(): Promise<void>;
}

/** A new closed {@link Gate}. */
export function gate(): Gate {
  let entered!: () => void;
  let open!: () => void;
  const enteredP = new Promise<void>((r) => {
    entered = r;
  });
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return {
    entered: enteredP,
    open,
    wait: () => {
      entered();
      return opened;
    },
  };
}
