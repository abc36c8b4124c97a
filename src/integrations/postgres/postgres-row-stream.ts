/**
 * A query whose rows are handed over one by one as they arrive and then dropped: an exact
 * search scans every vector under a prefix, and pg's usual result keeps every row until the
 * last has come (100,000 rows of hex text lived long enough to be copied by the garbage
 * collector, which took more time than the scoring).
 *
 * @module
 */
import pg from "pg";

/**
 * A connection as {@link streamRows} uses it: pg's `PoolClient` (a pg `Query` passed to its
 * `query`), or any client of the `PostgresPoolClient` interface (`query(text, values)`).
 */
export interface StreamClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
  /** pg's protocol connection: a pg-native client, or another one, has none, and runs no pg `Query`. */
  connection?: unknown;
}

/**
 * Run one statement on `client` and call `each` with every row (its columns in order, as pg
 * parses them) as it arrives; resolves with the count of rows once the statement is done.
 * Rows after a call of `each` threw are read but not handed over, and the statement's promise
 * rejects with that error once the server is done with the statement (so the connection is
 * left ready for another statement).
 * @throws the statement's or the connection's error, or the first error `each` threw.
 */
export function streamRows(
  client: StreamClient,
  text: string,
  values: unknown[],
  each: (row: unknown[]) => void,
): Promise<number> {
  const off = client.removeListener?.bind(client);
  if (!client.connection || off === undefined) return allRows(client, text, values, each);
  return new Promise((resolve, reject) => {
    // pg's types leave rowMode out of Query's config; pg reads it (rows as arrays).
    const query = new pg.Query({ text, values, rowMode: "array" } as pg.QueryConfig);
    let count = 0;
    let thrown: { error: unknown } | null = null;
    const failed = (e: Error) => {
      off("error", failed);
      reject(e);
    };
    client.on("error", failed);
    query.on("row", (row: unknown[]) => {
      count++;
      if (thrown) return;
      try {
        each(row);
      } catch (e) {
        thrown = { error: e };
      }
    });
    query.on("error", failed);
    query.on("end", () => {
      off("error", failed);
      if (thrown) reject(thrown.error);
      else resolve(count);
    });
    (client.query as unknown as (q: pg.Query) => unknown)(query);
  });
}

/**
 * {@link streamRows} on a client without pg's protocol connection (pg-native, or a client of
 * another driver behind the `PostgresPoolClient` interface): the rows all read first with
 * `query(text, values)`, then handed over in order, each as its columns' values in the order
 * the row object holds them (the statement's column order: its column names are distinct).
 */
async function allRows(
  client: StreamClient,
  text: string,
  values: unknown[],
  each: (row: unknown[]) => void,
): Promise<number> {
  const res = await client.query(text, values);
  let thrown: { error: unknown } | null = null;
  for (const row of res.rows) {
    try {
      each(Object.values(row as Record<string, unknown>));
    } catch (e) {
      thrown = { error: e };
      break;
    }
  }
  if (thrown) throw thrown.error;
  return res.rows.length;
}

/**
 * {@link streamRows} on a connection of `pool`, given back after (closed instead when the
 * statement, the connection or `each` failed).
 * @throws the pool's error when no connection can be had, else as {@link streamRows}.
 */
export async function streamOnPool(
  pool: { connect(): Promise<StreamClient & { release(error?: Error | boolean): void }> },
  text: string,
  values: unknown[],
  each: (row: unknown[]) => void,
): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await streamRows(client, text, values, each);
  } catch (e) {
    broken = e instanceof Error ? e : new Error(String(e));
    throw e;
  } finally {
    client.release(broken);
  }
}
