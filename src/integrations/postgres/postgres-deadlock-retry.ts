/**
 * Running a statement again when PostgreSQL ends it to break a deadlock.
 *
 * @module
 */

/** PostgreSQL's SQLSTATE for `deadlock detected`. */
export const DEADLOCK_DETECTED = "40P01";

/** Most runs of a statement that PostgreSQL keeps ending for deadlocks. */
export const MAX_DEADLOCK_RUNS = 5;

/**
 * Run `f`, a single statement (all or nothing, so safe to run again), again when PostgreSQL ends
 * it for a deadlock (SQLSTATE `40P01`, on the error or its `cause`), at most
 * {@link MAX_DEADLOCK_RUNS} times in all. Deletes of many rows need it: they lock rows in the
 * table's order, a `batch`'s multi-row upsert in its keys' order, and the two can wait on each
 * other; PostgreSQL then ends one of them (the upsert's batch puts its rows again one by one).
 * @throws the error of the last run, or any other error at once.
 */
export async function retryOnDeadlock<T>(f: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await f();
    } catch (e) {
      if (run >= MAX_DEADLOCK_RUNS || !isDeadlock(e)) throw e;
    }
  }
}

/** Whether `e` (or its `cause`) is PostgreSQL's `deadlock detected`. */
function isDeadlock(e: unknown): boolean {
  const code = (x: unknown) => (x as { code?: unknown } | null)?.code;
  return (
    code(e) === DEADLOCK_DETECTED ||
    code((e as { cause?: unknown } | null)?.cause) === DEADLOCK_DETECTED
  );
}
