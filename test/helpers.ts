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
