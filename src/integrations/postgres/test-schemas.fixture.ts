/**
 * Test fixture: the schemas a PostgreSQL test file makes, all named from one random prefix,
 * and an `afterAll` that drops every schema under it and ends the admin pool.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";

/** The test server (trust auth), as the machine and CI start it. */
export const TEST_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/**
 * A file's schemas: `prefix` (`nodestep_<label>_<8 hex digits>`, usable as a schema itself),
 * `next()` a new schema under it (`<prefix>_1`, `<prefix>_2`, …), `admin` a pool of `poolMax`
 * connections for the test's own queries. Registers the `afterAll` that cleans up.
 */
export function testSchemas(
  label: string,
  poolMax = 2,
): { url: string; admin: pg.Pool; prefix: string; next: () => string } {
  const prefix = `nodestep_${label}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: poolMax });
  let n = 0;
  afterAll(async () => {
    const left = await admin.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
      [`${prefix}%`],
    );
    for (const r of left.rows) await admin.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
    await admin.end();
  });
  return { url: TEST_POSTGRES_URL, admin, prefix, next: () => `${prefix}_${++n}` };
}
