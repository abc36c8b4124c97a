/**
 * The `memory` workload: put and search latency of the memory stores at 10,000 and 100,000
 * items (nodestep's InMemoryStore, SqliteMemoryStore, PostgresMemoryStore: with pgvector's
 * HNSW index when the server has it, else exact, the row says which), and LangGraph.js's
 * InMemoryStore beside the in-memory one for the same operations (put, get, search with a
 * query). Every store embeds with the same deterministic 64-dimension HashEmbeddings, so the
 * figures are the stores' own cost. `npm run bench` runs it last (`--only memory` alone); or
 * `node --import tsx bench/memory.ts [--quick] [--sizes 10000,100000] [--stores memory,langgraph,sqlite,postgres,postgres-exact] [--json FILE]`
 * (`postgres-exact`, PostgreSQL in exact mode also on a server with pgvector, is not in the default list).
 *
 * Each store is filled with N − 3,000 items through `batch` (chunks of 250 puts, 4 chunks in
 * flight: the fill is not timed; on PostgreSQL with its HNSW index dropped and built again after
 * it), then 2,000 one by one, untimed (they warm the single-put path, {@link WARM_PUTS}; part
 * of "fill s"), then the last 1,000 items are put one by one: "put mean" is
 * the mean of those 1,000 single puts into a store of N − 1,000 to N items (before this,
 * every one of the N puts was timed, which took six minutes on PostgreSQL at 100,000).
 * Reported per store and size: the mean put (ms, 1,000 single puts, as above), the median and p95 of
 * 200 gets and of 50 searches (limit 10) over the whole namespace, and the mean CPU time of
 * this process a search (user + system, ms: the in-process stores' own work, less distorted
 * by a loaded machine than the wall-clock figures; for PostgreSQL the server's is not in it),
 * and the seconds the untimed fill took ("fill s").
 *
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore as LangGraphInMemoryStore } from "@langchain/langgraph";
import { InMemoryStore, type MemoryOperation, type MemoryStore } from "nodestep";
import { PostgresMemoryStore } from "nodestep/postgres";
import { SqliteMemoryStore } from "nodestep/sqlite";
import { HashEmbeddings } from "nodestep/testing";
import pg from "pg";

const DIMS = 64;
const PG_URL = process.env.NODESTEP_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const WORDS = Array.from({ length: 2_000 }, (_, i) => `w${(i * 7919) % 10_007}`);

/** Deterministic text of item i: 8 words of a 2,000-word vocabulary. */
function text(i: number): string {
  const out: string[] = [];
  let x = i * 2654435761;
  for (let k = 0; k < 8; k++) {
    x = (x ^ (x >>> 13)) * 1274126177;
    out.push(WORDS[Math.abs(x) % WORDS.length]!);
  }
  return out.join(" ");
}

interface Ops {
  put(key: string, value: { text: string }): Promise<unknown>;
  /** Put items `from` to `to - 1` (untimed fill), `lanes` chunks in flight (default {@link IN_FLIGHT}). */
  fill(from: number, to: number, lanes?: number): Promise<void>;
  get(key: string): Promise<unknown>;
  search(query: string): Promise<unknown[]>;
  close(): Promise<void>;
}

function ours(store: MemoryStore): Ops {
  const ns = ["bench", "docs"];
  return {
    put: (k, v) => store.put(ns, k, v),
    fill: (from, to, lanes) =>
      inChunks(from, to, lanes, async (a, b) => {
        const ops: MemoryOperation[] = [];
        for (let i = a; i < b; i++)
          ops.push({ op: "put", namespace: ns, key: `k${i}`, value: { text: text(i) } });
        await store.batch(ops);
      }),
    get: (k) => store.get(ns, k),
    search: (q) => store.search(["bench"], { query: q, limit: 10 }),
    close: () => store.close(),
  };
}

function langgraph(): Ops {
  const e = new HashEmbeddings({ dimensions: DIMS });
  const store = new LangGraphInMemoryStore({
    index: {
      dims: DIMS,
      fields: ["text"],
      embeddings: {
        embedDocuments: async (texts: string[]) => texts.map((t) => e.vector(t)),
        embedQuery: async (t: string) => e.vector(t),
        // The two methods the store calls; the rest of @langchain/core's Embeddings is unused.
      } as never,
    },
  });
  const ns = ["bench", "docs"];
  return {
    put: (k, v) => store.put(ns, k, v),
    fill: (from, to, lanes) =>
      inChunks(from, to, lanes, async (a, b) => {
        const ops = [];
        for (let i = a; i < b; i++)
          ops.push({ namespace: ns, key: `k${i}`, value: { text: text(i) } });
        await store.batch(ops);
      }),
    get: (k) => store.get(ns, k),
    search: (q) => store.search(["bench"], { query: q, limit: 10 }),
    close: async () => {},
  };
}

/** Items put one by one and timed ("put mean"); the rest are filled in chunks first. */
const TIMED_PUTS = 1_000;
/**
 * Items put one by one, untimed, between the fill and the timed puts: the fill goes through
 * `batch` (PostgreSQL groups its puts into one upsert), so without them the timed puts would
 * be the process's first single puts, JIT-cold (on PostgreSQL about twice as slow for the
 * first thousand or two).
 */
const WARM_PUTS = 2_000;
const CHUNK = 250;
const IN_FLIGHT = 4;

/** Run `f` over [from, to) in chunks of CHUNK, `lanes` (default IN_FLIGHT) chunks at a time. */
async function inChunks(
  from: number,
  to: number,
  lanes: number | undefined,
  f: (a: number, b: number) => Promise<void>,
): Promise<void> {
  let next = from;
  const lane = async () => {
    while (next < to) {
      const a = next;
      next = Math.min(to, a + CHUNK);
      await f(a, next);
    }
  };
  await Promise.all(Array.from({ length: lanes ?? IN_FLIGHT }, lane));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** One line of the table (`--json` writes these): latencies in ms, the fill in seconds. */
export interface MemoryRow {
  store: string;
  items: number;
  /** Mean of the last 1,000 puts, one by one. */
  putMeanMs: number;
  getP50Ms: number;
  getP95Ms: number;
  searchP50Ms: number;
  searchP95Ms: number;
  /** This process's CPU per search. */
  searchCpuMs: number;
  /** Seconds the untimed fill (through `batch`) took. */
  fillSeconds: number;
}

/** A row as the printed table's line. */
function memoryLine(r: MemoryRow): string {
  const f = (x: number) => x.toFixed(3).padStart(9);
  return `${r.store.padEnd(26)} ${String(r.items).padStart(7)} ${f(r.putMeanMs)} ${f(r.getP50Ms)} ${f(r.getP95Ms)} ${f(r.searchP50Ms)} ${f(r.searchP95Ms)} ${f(r.searchCpuMs)} ${r.fillSeconds.toFixed(1).padStart(7)}`;
}

async function measure(
  name: string | (() => string),
  n: number,
  make: () => Promise<Ops>,
): Promise<MemoryRow> {
  const ops = await make();
  try {
    const timed = Math.min(TIMED_PUTS, n);
    const warm = Math.min(WARM_PUTS, n - timed);
    const f0 = performance.now();
    await ops.fill(0, n - timed - warm);
    // Single puts warm the single-put path (the fill goes through batch, which groups puts).
    for (let i = n - timed - warm; i < n - timed; i++) await ops.put(`k${i}`, { text: text(i) });
    const fillS = (performance.now() - f0) / 1000;
    const t0 = performance.now();
    for (let i = n - timed; i < n; i++) await ops.put(`k${i}`, { text: text(i) });
    const putMs = (performance.now() - t0) / timed;
    const gets: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await ops.get(`k${(i * 7_919) % n}`);
      gets.push(performance.now() - t);
    }
    const searches: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 50; i++) {
      const q = text((i * 104_729) % n)
        .split(" ")
        .slice(0, 3)
        .join(" ");
      const t = performance.now();
      const found = await ops.search(q);
      searches.push(performance.now() - t);
      if (found.length !== 10)
        throw new Error(`${String(name)}: search found ${found.length} items, not 10`);
    }
    const cpu = process.cpuUsage(cpu0);
    if (typeof name === "function") name = name();
    return {
      store: name,
      items: n,
      putMeanMs: putMs,
      getP50Ms: pct(gets, 50),
      getP95Ms: pct(gets, 95),
      searchP50Ms: pct(searches, 50),
      searchP95Ms: pct(searches, 95),
      searchCpuMs: (cpu.user + cpu.system) / 1000 / 50,
      fillSeconds: fillS,
    };
  } finally {
    await ops.close();
  }
}

/** Connections of the PostgreSQL fill's own pool, and so its puts in flight. */
const PG_FILL_LANES = 8;

/**
 * PostgreSQL's fill, with its HNSW index dropped, built again (as the store made it) before
 * the timed puts: inserting 100,000 rows one by one into an HNSW index took minutes, building
 * it over them seconds (with `maintenance_work_mem` 512 MB for that statement, so that the
 * graph is built in memory). The fill goes through a second store on the same tables (made by
 * `make`, the same options but its pool) whose sessions have `synchronous_commit` off and
 * {@link PG_FILL_LANES} puts in flight: the same rows, without waiting for a WAL flush per put
 * (the fill of 99,000 items took 74 s with a flush each, 4 in flight). The timed puts, gets and
 * searches all run on `store` (its own pool, `synchronous_commit` as the server has it), with
 * the index in place.
 */
function withIndexBuiltAfterFill(
  ops: Ops,
  store: PostgresMemoryStore,
  make: (pool: pg.Pool) => PostgresMemoryStore,
  admin: pg.Pool,
  schema: string,
): Ops {
  return {
    ...ops,
    fill: async (from, to) => {
      await store.ready();
      const pool = new pg.Pool({
        connectionString: PG_URL,
        max: PG_FILL_LANES,
        options: "-c synchronous_commit=off",
      });
      const filler = make(pool);
      try {
        // Ready (its tables checked) before the index is dropped, so that it makes none.
        await filler.ready();
        const found = await admin.query<{ indexname: string; indexdef: string }>(
          "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexdef ILIKE '%USING hnsw%'",
          [schema],
        );
        for (const r of found.rows) await admin.query(`DROP INDEX "${schema}"."${r.indexname}"`);
        await ours(filler).fill(from, to, PG_FILL_LANES);
        // 100,000 vectors' graph is more than the default 64 MB: built in memory, not on disk.
        for (const r of found.rows)
          await admin.query(
            `SET maintenance_work_mem = '512MB'; ${r.indexdef}; RESET maintenance_work_mem`,
          );
      } finally {
        await filler.close();
        await pool.end();
      }
    },
  };
}

async function pgvectorAvailable(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    const r = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    return r.rowCount === 1;
  } catch {
    return false;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes("--quick");
  const sizes = (arg("--sizes") ?? (quick ? "10000" : "10000,100000")).split(",").map(Number);
  const stores = (arg("--stores") ?? "memory,langgraph,sqlite,postgres").split(",");
  const embeddings = new HashEmbeddings({ dimensions: DIMS });
  const index = { embeddings, dimensions: DIMS, fields: ["text"] };
  const dir = mkdtempSync(join(tmpdir(), "nodestep-bench-memory-"));
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const hasPgvector =
    (stores.includes("postgres") || stores.includes("postgres-exact")) &&
    (await pgvectorAvailable());
  console.log(
    `\nmemory: put, get and search latency (ms; stores filled through batch, put = mean of the last 1,000 items put one by one; search = 10 nearest of the whole namespace, 64 dims; srch cpu = this process's CPU a search); ${stores.some((x) => x.startsWith("postgres")) ? `PostgreSQL ${hasPgvector ? "has" : "has no"} pgvector, ` : ""}load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log(
    `${"store".padEnd(26)} ${"items".padStart(7)} ${"put mean".padStart(9)} ${"get p50".padStart(9)} ${"get p95".padStart(9)} ${"srch p50".padStart(9)} ${"srch p95".padStart(9)} ${"srch cpu".padStart(9)} ${"fill s".padStart(7)}`,
  );
  const rows: MemoryRow[] = [];
  const print = (r: MemoryRow) => {
    rows.push(r);
    console.log(memoryLine(r));
  };
  try {
    for (const n of sizes) {
      if (stores.includes("memory"))
        print(
          await measure("nodestep InMemory", n, async () => ours(new InMemoryStore({ index }))),
        );
      if (stores.includes("langgraph"))
        print(await measure("LangGraph InMemory", n, async () => langgraph()));
      if (stores.includes("sqlite"))
        print(
          await measure("nodestep SQLite", n, async () =>
            ours(new SqliteMemoryStore({ path: join(dir, `m${n}.db`), index })),
          ),
        );
      const pgRuns: ("auto" | "exact")[] = [];
      if (stores.includes("postgres")) pgRuns.push("auto");
      if (stores.includes("postgres-exact") && (hasPgvector || !stores.includes("postgres")))
        pgRuns.push("exact");
      for (const vectorIndex of pgRuns) {
        const schema = `nodestep_bench_memory_${vectorIndex}_${n}`;
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        let store: PostgresMemoryStore | null = null;
        print(
          await measure(
            () => `nodestep PostgreSQL ${store?.vectorMode === "pgvector" ? "pgvector" : "exact"}`,
            n,
            async () => {
              const pgStore = new PostgresMemoryStore({
                connectionString: PG_URL,
                schema,
                index,
                vectorIndex,
              });
              store = pgStore;
              const filler = (pool: pg.Pool) =>
                new PostgresMemoryStore({ pool, schema, index, vectorIndex });
              return withIndexBuiltAfterFill(ours(pgStore), pgStore, filler, admin, schema);
            },
          ),
        );
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    }
  } finally {
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  const json = arg("--json");
  if (json) writeFileSync(json, `${JSON.stringify(rows, null, 2)}\n`);
}

await main();
