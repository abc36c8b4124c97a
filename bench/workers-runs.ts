/**
 * The `workers` workload (issue 17): end-to-end runs per second through a server that queues
 * its runs on BullMQ (`createServer({ runQueue })`, in this process) and `nodestep worker`
 * processes (1, then 2; `--concurrency 8` each) on PostgreSQL and Redis. Each run is a client's
 * `POST /api/threads/:id/runs/stream` of a four-node graph whose nodes do no work (the cost is
 * the queue, the store, the Redis Streams and the server), all N runs started at once, timed
 * from the first request to the last stream's end, after a warm-up of 20 runs.
 *
 * The same runs in the server's process without a queue come first, as the baseline.
 * Reported per worker count: runs per second (wall), and the CPU time per run of the server
 * process and of the workers (from /proc, user + system) — on a shared machine the CPU figures
 * are the steadier ones; the wall figures are indicative only.
 *
 * `npm run bench -- --only workers [--quick]`; alone: `node --import tsx bench/workers-runs.ts
 * [--quick] [--runs 200] [--json FILE]`. Needs Redis on 127.0.0.1:6379 and PostgreSQL (NODESTEP_BENCH_PG,
 * default postgres://postgres@127.0.0.1:5432/test); a random schema and key prefix, removed after.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { defineState, END, Graph, node, START, type StateStore } from "nodestep";
import { BullMQRunQueue } from "nodestep/bullmq";
import { PostgresStateStore } from "nodestep/postgres";
import { createServer, listen } from "nodestep/server";
import pg from "pg";
import { z } from "zod";

const State = defineState({ topic: z.string().default(""), hops: z.number().default(0) });

/** The benchmark's graph (also the workers' `nodestep worker` target): four nodes, no work. */
export function buildBenchGraph({ stateStore }: { stateStore: StateStore }) {
  const hop = (name: string) => node((s: typeof State.State) => ({ hops: s.hops + 1 }), { name });
  const [a, b, c, d] = ["a", "b", "c", "d"].map(hop) as [
    ReturnType<typeof hop>,
    ReturnType<typeof hop>,
    ReturnType<typeof hop>,
    ReturnType<typeof hop>,
  ];
  return new Graph(State, { name: "bench-workers", stateStore }).flow(
    START.to(a),
    a.to(b),
    b.to(c),
    c.to(d),
    d.to(END),
  );
}

const self = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL("..", import.meta.url));
const PG_URL = process.env.NODESTEP_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS = { host: "127.0.0.1", port: 6379 };
const TICKS = 100; // clock ticks per second of /proc/<pid>/stat (USER_HZ on Linux)

/** CPU time of a process so far, in ms (user + system), from /proc. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

async function startWorker(schema: string, prefix: string): Promise<ChildProcess> {
  const p = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      `${root}src/cli/main.ts`,
      "worker",
      `${self}#buildBenchGraph`,
      "--store",
      `${PG_URL}?schema=${schema}`,
      "--redis",
      "redis://127.0.0.1:6379",
      "--prefix",
      prefix,
      "--concurrency",
      "8",
      "--drain-ms",
      "0",
    ],
    {
      cwd: root,
      env: { ...process.env, TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    p.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve();
    });
    p.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
  return p;
}

async function runMany(url: string, n: number, tag: string): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await fetch(`${url}/api/threads/${tag}-${i}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: { topic: `t${i}` } }),
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes("event: end"))
        throw new Error(`run ${tag}-${i}: ${res.status} ${text.slice(-300)}`);
    }),
  );
}

/** One row of the report. */
export interface WorkersRow {
  workers: number;
  runs: number;
  runsPerSecond: number;
  serverCpuMsPerRun: number;
  workersCpuMsPerRun: number;
}

async function measure(workers: number, runs: number): Promise<WorkersRow> {
  const tag = randomBytes(4).toString("hex");
  const schema = `nodestep_bench_workers_${tag}`;
  const prefix = `nodestep-bench-${tag}`;
  const store = new PostgresStateStore({ connectionString: PG_URL, schema });
  await store.getBranch("setup", "main"); // the schema, before the workers open it
  // 0 workers: the same runs in the server's process, no queue (the baseline).
  const runQueue = workers > 0 ? new BullMQRunQueue({ connection: REDIS, prefix }) : null;
  const app = createServer({
    graph: buildBenchGraph({ stateStore: store }),
    runQueue,
    maxConcurrentRuns: runs + 20,
  });
  const server = await listen(app, { port: 0 });
  const procs: ChildProcess[] = [];
  try {
    for (let i = 0; i < workers; i++) procs.push(await startWorker(schema, prefix));
    await runMany(server.url, 20, `warm${tag}`);
    const cpu0 = { server: process.cpuUsage(), workers: procs.map((p) => cpuMs(p.pid!)) };
    const t0 = performance.now();
    await runMany(server.url, runs, `run${tag}`);
    const ms = performance.now() - t0;
    const serverCpu = process.cpuUsage(cpu0.server);
    const workersCpu = procs.reduce((sum, p, i) => sum + cpuMs(p.pid!) - cpu0.workers[i]!, 0);
    return {
      workers,
      runs,
      runsPerSecond: (runs * 1000) / ms,
      serverCpuMsPerRun: (serverCpu.user + serverCpu.system) / 1000 / runs,
      workersCpuMsPerRun: workersCpu / runs,
    };
  } finally {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise((resolve) => {
            p.once("exit", resolve);
            p.kill("SIGTERM");
          }),
      ),
    );
    await server.close();
    await runQueue?.close();
    await store.close();
    const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
    const redis = new Redis(REDIS);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
    redis.disconnect();
  }
}

/** The report's table. */
export function workersTable(rows: WorkersRow[]): string {
  const head = "| workers | runs | runs/s (wall) | server CPU ms/run | workers CPU ms/run |";
  const line = "|---:|---:|---:|---:|---:|";
  return [
    head,
    line,
    ...rows.map(
      (r) =>
        `| ${r.workers === 0 ? "none (in the server's process)" : r.workers} | ${r.runs} | ${r.runsPerSecond.toFixed(1)} | ${r.serverCpuMsPerRun.toFixed(2)} | ${r.workersCpuMsPerRun.toFixed(2)} |`,
    ),
  ].join("\n");
}

if (process.argv[1] === self) {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      json: { type: "string" },
    },
  });
  const runs = Number(values.runs ?? (values.quick ? 50 : 200));
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be an integer ≥ 1`);
  const rows: WorkersRow[] = [];
  for (const workers of [0, 1, 2]) rows.push(await measure(workers, runs));
  console.log(
    `\nRuns on workers (issue 17): ${runs} runs at once through one server and BullMQ, ${cpus()[0]?.model ?? "unknown CPU"}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} (wall figures indicative on a shared machine)\n`,
  );
  console.log(workersTable(rows));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
}
