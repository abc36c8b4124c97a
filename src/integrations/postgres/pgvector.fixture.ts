/**
 * Test setup: whether the test server can create pgvector (`vector` in
 * `pg_available_extensions`). Debian 12 packages no pgvector, so a fresh machine says no; the
 * tests then check the exact fallback and the one-line error instead of the HNSW index.
 */
import pg from "pg";

/** @returns whether the server at `url` has the `vector` extension available. */
export async function pgvectorAvailable(url: string): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const r = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return r.rowCount === 1;
  } finally {
    await pool.end();
  }
}
