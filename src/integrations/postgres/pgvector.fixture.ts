/**
 * Test setup: make sure pgvector can be created on the test server, installing Debian's
 * package when it is missing and this process is root (as .ci/run does), or fail with one line.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import pg from "pg";

async function available(url: string): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const r = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return r.rowCount === 1;
  } finally {
    await pool.end();
  }
}

/** @throws Error with one line saying what to install when pgvector is not there and cannot be installed. */
export async function ensurePgvector(url: string): Promise<void> {
  if (await available(url)) return;
  const versions = (() => {
    try {
      return readdirSync("/etc/postgresql");
    } catch {
      return [];
    }
  })();
  const pkg = `postgresql-${versions[0] ?? "<version>"}-pgvector`;
  if (process.getuid?.() === 0 && versions.length > 0) {
    try {
      execFileSync("sh", ["-c", `apt-get update -qq && apt-get install -y -qq ${pkg}`], {
        stdio: "ignore",
        timeout: 300_000,
      });
    } catch {
      // reported below
    }
    if (await available(url)) return;
  }
  throw new Error(
    `pgvector is not installed on the PostgreSQL server at ${url} and could not be installed: run \`apt-get install -y ${pkg}\` (or build pgvector for it) as root`,
  );
}
