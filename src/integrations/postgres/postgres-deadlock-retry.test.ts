import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../../errors/index.js";
import { MAX_DEADLOCK_RUNS, retryOnDeadlock } from "./postgres-deadlock-retry.js";

/** A pg-like error with SQLSTATE `code`, wrapped as the store wraps query errors. */
const wrapped = (code: string) =>
  new MemoryStoreError("PostgresMemoryStore: the query failed: x", {
    cause: Object.assign(new Error("x"), { code }),
  });

describe("retryOnDeadlock", () => {
  it("runs a statement ended for a deadlock again, until it succeeds", async () => {
    let runs = 0;
    const out = await retryOnDeadlock(async () => {
      if (++runs < 3) throw wrapped("40P01");
      return "done";
    });
    expect([out, runs]).toEqual(["done", 3]);
  });

  it(`throws the last deadlock after ${MAX_DEADLOCK_RUNS} runs`, async () => {
    let runs = 0;
    const e = await retryOnDeadlock(async () => {
      runs++;
      throw Object.assign(new Error(`deadlock ${runs}`), { code: "40P01" });
    }).catch((x: unknown) => x);
    expect([(e as Error).message, runs]).toEqual([`deadlock ${MAX_DEADLOCK_RUNS}`, 5]);
  });

  it("throws any other error at once", async () => {
    let runs = 0;
    const e = await retryOnDeadlock(async () => {
      runs++;
      throw wrapped("40001");
    }).catch((x: unknown) => x);
    expect([e instanceof MemoryStoreError, runs]).toEqual([true, 1]);
  });
});
