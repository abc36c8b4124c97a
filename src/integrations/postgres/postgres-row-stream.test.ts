import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { streamOnPool, streamRows } from "./postgres-row-stream.js";

const pool = new pg.Pool({ connectionString: "postgres://postgres@127.0.0.1:5432/test", max: 1 });
afterAll(() => pool.end());

describe("streamRows", () => {
  it("hands each row over as an array of its columns, in order, and counts them", async () => {
    const client = await pool.connect();
    try {
      const rows: unknown[][] = [];
      const count = await streamRows(
        client,
        "SELECT i, 'k' || i AS key, NULL::text AS nothing FROM generate_series(1, $1::int) AS i",
        [3],
        (row) => rows.push(row),
      );
      expect(count).toBe(3);
      expect(rows).toEqual([
        [1, "k1", null],
        [2, "k2", null],
        [3, "k3", null],
      ]);
      expect(await streamRows(client, "SELECT 1 WHERE false", [], () => {})).toBe(0);
    } finally {
      client.release();
    }
  });

  it("rejects with the first error of `each` once the statement is done, the connection still usable", async () => {
    const client = await pool.connect();
    try {
      const seen: number[] = [];
      const error = await streamRows(client, "SELECT generate_series(1, 5)", [], (row) => {
        seen.push(row[0] as number);
        if (row[0] === 2) throw new Error("row 2");
        if (row[0] === 4) throw new Error("row 4");
      }).catch((e: unknown) => e);
      expect(error).toEqual(new Error("row 2"));
      expect(seen).toEqual([1, 2]);
      expect((await client.query("SELECT 7 AS n")).rows).toEqual([{ n: 7 }]);
    } finally {
      client.release();
    }
  });

  it("rejects with the statement's error, the connection still usable", async () => {
    const client = await pool.connect();
    try {
      const rows: unknown[][] = [];
      const error = await streamRows(
        client,
        "SELECT 1 / (2 - i) FROM generate_series(1, 3) AS i",
        [],
        (row) => rows.push(row),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(pg.DatabaseError);
      expect((error as Error).message).toBe("division by zero");
      expect(rows).toEqual([[1]]);
      expect((await client.query("SELECT 8 AS n")).rows).toEqual([{ n: 8 }]);
    } finally {
      client.release();
    }
  });

  it("on a pool: gives the connection back after a statement, and closes it after one that failed", async () => {
    const own = new pg.Pool({
      connectionString: "postgres://postgres@127.0.0.1:5432/test",
      max: 1,
    });
    try {
      const rows: unknown[][] = [];
      expect(await streamOnPool(own, "SELECT 'a' AS x", [], (row) => rows.push(row))).toBe(1);
      expect(rows).toEqual([["a"]]);
      expect([own.totalCount, own.idleCount]).toEqual([1, 1]);
      const error = await streamOnPool(own, "SELECT nope", [], () => {}).catch((e: unknown) => e);
      expect((error as Error).message).toBe('column "nope" does not exist');
      expect(own.totalCount).toBe(0);
      expect((await own.query("SELECT 9 AS n")).rows).toEqual([{ n: 9 }]);
    } finally {
      await own.end();
    }
  });

  it("on a client without pg's protocol connection (pg-native, another driver): reads the rows with query(text, values), then hands them over", async () => {
    const client = await pool.connect();
    try {
      // The pool's client seen as another driver's: no `connection`, no `removeListener`,
      // only the PostgresPoolClient interface's query(text, values).
      const native = {
        query: (text: string, values?: unknown[]) => client.query(text, values),
        on: () => undefined,
      };
      const rows: unknown[][] = [];
      const sql = "SELECT i, 'k' || i FROM generate_series(1, $1::int) AS i";
      expect(await streamRows(native, sql, [3], (row) => rows.push(row))).toBe(3);
      expect(rows).toEqual([
        [1, "k1"],
        [2, "k2"],
        [3, "k3"],
      ]);
      const seen: unknown[] = [];
      const error = await streamRows(native, sql, [3], (row) => {
        seen.push(row[0]);
        if (row[0] === 2) throw new Error("row 2");
      }).catch((e: unknown) => e);
      expect(error).toEqual(new Error("row 2"));
      expect(seen).toEqual([1, 2]);
      const failed = await streamRows(native, "SELECT nope", [], () => {}).catch((e: unknown) => e);
      expect((failed as Error).message).toBe('column "nope" does not exist');
    } finally {
      client.release();
    }
  });
});
