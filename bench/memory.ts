/**
 * The `memory` workload: put and search latency of the memory stores at 10,000 and 100,000
 * items (nodestep's InMemoryStore, SqliteMemoryStore, PostgresMemoryStore with pgvector), and
 * LangGraph.js's InMemoryStore beside the in-memory one for the same operations (put, get,
 * search with a query). Every store embeds with the same deterministic 64-dimension
 * HashEmbeddings, so the figures are the stores' own cost. `npm run bench` runs it last;
 * alone: `node --import tsx bench/memory.ts [--quick] [--sizes 10000,100000] [--stores memory,sqlite,postgres,langgraph]`.
 *
 * Reported per store and size: the mean put (ms, all N puts one by one), the median and p95 of
 * 200 gets and of 50 searches (limit 10) over the whole namespace.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore as LangGraphInMemoryStore } from "@langchain/langgraph";
import { InMemoryStore, type MemoryStore } from "nodestep";
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
  get(key: string): Promise<unknown>;
  search(query: string): Promise<unknown[]>;
  close(): Promise<void>;
}

function ours(store: MemoryStore): Ops {
  const ns = ["bench", "docs"];
  return {
    put: (k, v) => store.put(ns, k, v),
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
    get: (k) => store.get(ns, k),
    search: (q) => store.search(["bench"], { query: q, limit: 10 }),
    close: async () => {},
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function measure(name: string, n: number, make: () => Promise<Ops>): Promise<string> {
  const ops = await make();
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await ops.put(`k${i}`, { text: text(i) });
    const putMs = (performance.now() - t0) / n;
    const gets: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await ops.get(`k${(i * 7_919) % n}`);
      gets.push(performance.now() - t);
    }
    const searches: number[] = [];
    for (let i = 0; i < 50; i++) {
      const q = text((i * 104_729) % n)
        .split(" ")
        .slice(0, 3)
        .join(" ");
      const t = performance.now();
      const found = await ops.search(q);
      searches.push(performance.now() - t);
      if (found.length !== 10)
        throw new Error(`${name}: search found ${found.length} items, not 10`);
    }
    const f = (x: number) => x.toFixed(3).padStart(9);
    return `${name.padEnd(22)} ${String(n).padStart(7)} ${f(putMs)} ${f(pct(gets, 50))} ${f(pct(gets, 95))} ${f(pct(searches, 50))} ${f(pct(searches, 95))}`;
  } finally {
    await ops.close();
  }
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
  const hasPg = stores.includes("postgres") && (await pgvectorAvailable());
  console.log(
    "\nmemory: put, get and search latency (ms; search = 10 nearest of the whole namespace, 64 dims)",
  );
  console.log(
    `${"store".padEnd(22)} ${"items".padStart(7)} ${"put mean".padStart(9)} ${"get p50".padStart(9)} ${"get p95".padStart(9)} ${"srch p50".padStart(9)} ${"srch p95".padStart(9)}`,
  );
  try {
    for (const n of sizes) {
      if (stores.includes("memory"))
        console.log(
          await measure("nodestep InMemory", n, async () => ours(new InMemoryStore({ index }))),
        );
      if (stores.includes("langgraph"))
        console.log(await measure("LangGraph InMemory", n, async () => langgraph()));
      if (stores.includes("sqlite"))
        console.log(
          await measure("nodestep SQLite", n, async () =>
            ours(new SqliteMemoryStore({ path: join(dir, `m${n}.db`), index })),
          ),
        );
      if (hasPg) {
        const schema = `nodestep_bench_memory_${n}`;
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        console.log(
          await measure("nodestep PostgreSQL", n, async () =>
            ours(new PostgresMemoryStore({ connectionString: PG_URL, schema, index })),
          ),
        );
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } else if (stores.includes("postgres")) {
        console.log(
          `${"nodestep PostgreSQL".padEnd(22)} ${String(n).padStart(7)}   skipped: no PostgreSQL with pgvector at ${PG_URL}`,
        );
      }
    }
  } finally {
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
