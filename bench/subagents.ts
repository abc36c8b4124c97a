/**
 * Sub-agent benchmark (issue 5):
 * - 1,000 sub-agents spawned with `ctx.spawn` and gathered with `ctx.gather` in one process
 *   (a fresh child process, after a warm-up of 50): wall time and the process's peak RSS;
 * - BullMQ throughput: 200 small jobs (a tool-calling agent: two model calls and one tool
 *   call, on PostgreSQL) submitted at once, on one and then on two worker processes
 *   (concurrency 1 each, after a warm-up of 10 jobs): jobs per second from submit to the last
 *   result polled.
 *
 * Needs Redis on 127.0.0.1:6379 and PostgreSQL (DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test); uses a random key prefix and schema, removed after.
 *
 *   node --import tsx bench/subagents.ts [--spawn 1000] [--jobs 200]
 *        [--workers 1,2] [--concurrency 1] [--json FILE]
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type AgentJob,
  buildReactAgent,
  defineState,
  END,
  Graph,
  HumanMessage,
  MemoryStateStore,
  node,
  ScriptedChat,
  START,
  tool,
} from "nodestep";
import { BullMQExecutor, runWorker } from "nodestep/bullmq";
import type { ChatRequest, ChatResponseInit } from "nodestep/chat";
import { PostgresStateStore } from "nodestep/postgres";
import pg from "pg";
import { z } from "zod";

const self = fileURLToPath(import.meta.url);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const connection = { host: "127.0.0.1", port: 6379 };

const { values } = parseArgs({
  options: {
    part: { type: "string", default: "main" },
    spawn: { type: "string", default: "1000" },
    jobs: { type: "string", default: "200" },
    workers: { type: "string", default: "1,2" },
    concurrency: { type: "string", default: "1" },
    prefix: { type: "string" },
    schema: { type: "string" },
    json: { type: "string" },
  },
});

/** The sub-agent: look the topic up, then answer; its model answers from the request. */
function researcher(calls: number) {
  const lookup = tool(({ topic }) => `notes on ${topic}`, {
    name: "lookup",
    description: "Look a topic up.",
    input: z.object({ topic: z.string() }),
  });
  const answer = (request: ChatRequest): ChatResponseInit | string => {
    const topic = request.messages.find((m) => m.type === "human")?.content ?? "";
    return request.messages.at(-1)?.type === "tool"
      ? `${topic}: done`
      : { toolCalls: [{ id: `call-${topic}`, name: "lookup", arguments: { topic } }] };
  };
  return buildReactAgent(new ScriptedChat(Array.from({ length: calls }, () => answer)), {
    name: "researcher",
    tools: [lookup],
  });
}

const input = (topic: string) => ({ messages: [HumanMessage({ content: topic })] });

/** In a fresh process: spawn and gather `n` sub-agents from one node, on a memory store. */
async function spawnPart(n: number): Promise<void> {
  const agent = researcher(2 * (n + 50));
  const Boss = defineState({ n: z.number().default(0), done: z.number().default(0) });
  const fan = node(
    async (s: typeof Boss.State, ctx) => {
      const handles = await ctx.spawn(
        Array.from({ length: s.n }, (_, i) => ({ graph: agent, input: input(`t${i}`) })),
      );
      const results = await ctx.gather(handles);
      return { done: results.filter((r) => r.status === "completed").length };
    },
    { name: "fan" },
  );
  const store = new MemoryStateStore();
  const boss = new Graph(Boss, { stateStore: store }).flow(START.to(fan), fan.to(END));
  await boss.invoke({ n: 50 }, { threadId: "warm-up" });
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const { state } = await boss.invoke({ n }, { threadId: "bench" });
  const ms = performance.now() - t0;
  if (state.done !== n) throw new Error(`only ${state.done} of ${n} sub-agents completed`);
  process.stdout.write(
    `${JSON.stringify({
      n,
      ms: Math.round(ms),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      rssBeforeMb: Math.round(rssBefore / 1024 / 1024),
    })}\n`,
  );
}

/** A worker process of the throughput part. */
async function workerPart(prefix: string, schema: string, concurrency: number): Promise<void> {
  const stateStore = new PostgresStateStore({ connectionString: DATABASE_URL, schema });
  const worker = await runWorker({
    connection,
    prefix,
    registry: { researcher: researcher(100_000) },
    stateStore,
    concurrency,
  });
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => {
    void worker
      .close()
      .then(() => stateStore.close())
      .then(() => process.exit(0));
  });
}

function child(args: string[]): { process: ChildProcess; output: Promise<string> } {
  const p = spawn(process.execPath, ["--import", "tsx", self, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const output = new Promise<string>((resolve, reject) => {
    p.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready\n")) resolve(out);
    });
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
  return { process: p, output };
}

/** Jobs per second of `jobs` jobs on `workers` worker processes. */
async function throughput(
  workers: number,
  jobs: number,
  concurrency: number,
  schema: string,
): Promise<{ workers: number; jobs: number; ms: number; jobsPerSec: number }> {
  const prefix = `nodestep-bench-${randomBytes(4).toString("hex")}`;
  const agent = researcher(0);
  const executor = new BullMQExecutor({ connection, prefix, registry: { researcher: agent } });
  const children = Array.from({ length: workers }, () =>
    child([
      "--part",
      "worker",
      "--prefix",
      prefix,
      "--schema",
      schema,
      "--concurrency",
      `${concurrency}`,
    ]),
  );
  try {
    await Promise.all(children.map((c) => c.output));
    let submitted = 0;
    const run = async (count: number, tag: string): Promise<number> => {
      const list: AgentJob[] = Array.from({ length: count }, (_, i) => ({
        id: `sa-${tag}-${i}`,
        graph: agent,
        input: input(`${tag}${i}`),
        context: undefined,
        hasContext: false,
        threadId: `${prefix}:${tag}:${i}`,
        stateStore: null,
        rootRunId: `bench-${tag}`,
      }));
      const t0 = performance.now();
      const handles = await executor.submit(list);
      submitted += count;
      for (;;) {
        const counts = await executor.queue.getJobCounts("completed", "failed");
        if ((counts.completed ?? 0) + (counts.failed ?? 0) >= submitted) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      const results = await executor.poll(handles);
      const ms = performance.now() - t0;
      const bad = results.filter((r) => r?.status !== "completed");
      if (bad.length > 0)
        throw new Error(`${bad.length} jobs did not complete: ${JSON.stringify(bad[0])}`);
      return ms;
    };
    await run(10, "warm");
    const ms = await run(jobs, "run");
    return {
      workers,
      jobs,
      ms: Math.round(ms),
      jobsPerSec: Math.round((jobs / ms) * 1000 * 10) / 10,
    };
  } finally {
    for (const c of children) c.process.kill("SIGTERM");
    await Promise.all(children.map((c) => c.output.catch(() => "")));
    await executor.queue.obliterate({ force: true });
    await executor.close();
  }
}

/** The same jobs run one after another in this process on the same store: no queue. */
async function direct(
  jobs: number,
  schema: string,
): Promise<{ jobs: number; ms: number; jobsPerSec: number }> {
  const stateStore = new PostgresStateStore({ connectionString: DATABASE_URL, schema });
  const agent = researcher(2 * (jobs + 10));
  try {
    for (let i = 0; i < 10; i++)
      await agent.invoke(input(`w${i}`), { threadId: `direct-w${i}`, stateStore });
    const t0 = performance.now();
    for (let i = 0; i < jobs; i++)
      await agent.invoke(input(`d${i}`), { threadId: `direct-${i}`, stateStore });
    const ms = performance.now() - t0;
    return { jobs, ms: Math.round(ms), jobsPerSec: Math.round((jobs / ms) * 1000 * 10) / 10 };
  } finally {
    await stateStore.close();
  }
}

if (values.part === "spawn") {
  await spawnPart(Number(values.spawn));
} else if (values.part === "worker") {
  await workerPart(values.prefix!, values.schema!, Number(values.concurrency));
} else {
  const spawnFigures = JSON.parse(
    (await child(["--part", "spawn", "--spawn", values.spawn!]).output).trim(),
  ) as { n: number; ms: number; peakRssMb: number; rssBeforeMb: number };
  console.log(
    `spawn+gather: ${spawnFigures.n} sub-agents in one process: ${spawnFigures.ms} ms, peak RSS ${spawnFigures.peakRssMb} MB (${spawnFigures.rssBeforeMb} MB before)`,
  );
  const schema = `nodestep_bench_${randomBytes(4).toString("hex")}`;
  const rows: Awaited<ReturnType<typeof throughput>>[] = [];
  let baseline: Awaited<ReturnType<typeof direct>> | null = null;
  try {
    baseline = await direct(Number(values.jobs), schema);
    console.log(
      `baseline: the same ${baseline.jobs} runs one after another in one process, no queue: ${baseline.ms} ms, ${baseline.jobsPerSec} runs/s`,
    );
    for (const w of values.workers!.split(",").map(Number)) {
      const r = await throughput(w, Number(values.jobs), Number(values.concurrency), schema);
      rows.push(r);
      console.log(
        `bullmq: ${r.jobs} jobs on ${r.workers} worker(s) (concurrency ${values.concurrency}): ${r.ms} ms, ${r.jobsPerSec} jobs/s`,
      );
    }
  } finally {
    const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}`,
  );
  if (values.json)
    writeFileSync(
      values.json,
      `${JSON.stringify({ spawn: spawnFigures, baseline, bullmq: rows, loadavg: loadavg() }, null, 2)}\n`,
    );
}
