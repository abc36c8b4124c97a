/**
 * `deleteThread` on PostgreSQL and a fork made after it listed the branches, whose lease a
 * run then takes: the delete must refuse with `ThreadBusyError` (the fork is running), not
 * delete the fork under the run. (Its transaction deleted every branch row, the fork's too.)
 *
 * The cases are in src/stores/delete-fork.fixture.ts (shared with SQLite's).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe } from "vitest";
import { deleteForkCases } from "../../stores/delete-fork.fixture.js";
import { PostgresStateStore } from "./index.js";

const URL = "postgres://postgres@127.0.0.1:5432/test";
const schema = `nodestep_dfl_${randomBytes(4).toString("hex")}`;
const admin = new pg.Pool({ connectionString: URL, max: 2 });
const stores: PostgresStateStore[] = [];

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

function open(): PostgresStateStore {
  const s = new PostgresStateStore({ connectionString: URL, schema });
  stores.push(s);
  return s;
}

describe("deleteThread and a fork made after its listing (PostgreSQL)", () => {
  deleteForkCases(open);
});
