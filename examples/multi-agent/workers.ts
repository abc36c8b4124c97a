// The supervisor of supervisor.ts, with its researchers on BullMQ workers: `--workers 2`
// starts two worker processes (worker.ts), then the supervisor submits one researcher per
// topic with ctx.submit, polls them with ctx.pollAgents until all are done, and merges their
// answers. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379) and PostgreSQL
// (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test); it uses its own Redis key
// prefix and PostgreSQL schema, and removes both at the end.
//
//   node --import tsx examples/multi-agent/workers.ts --workers 2

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type AgentResult, type DurableAgentHandle, END, Graph, node, START } from "nodestep";
import { BullMQExecutor } from "nodestep/bullmq";
import { PostgresStateStore } from "nodestep/postgres";
import pg from "pg";
import { z } from "zod";
import {
  mergeReport,
  QUESTION,
  registry,
  researcher,
  researchInput,
  Supervisor,
  TOPICS,
} from "./team.js";

const { values } = parseArgs({ options: { workers: { type: "string", default: "2" } } });
const count = Number(values.workers);
if (!Number.isInteger(count) || count < 1) throw new Error("--workers takes a positive integer");

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redis = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const tag = randomBytes(4).toString("hex");
const prefix = `nodestep-example-${tag}`;
const schema = `nodestep_example_${tag}`;

// Start the workers, as you would on other machines, and wait until each is connected.
const workerScript = fileURLToPath(new URL("./worker.ts", import.meta.url));
const children: ChildProcess[] = [];
await Promise.all(
  Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ["--import", "tsx", workerScript], {
      env: { ...process.env, NODESTEP_PREFIX: prefix, NODESTEP_SCHEMA: schema },
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    return new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (d: Buffer) => {
        if (d.toString().includes("ready")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`a worker exited with ${code}`)));
    });
  }),
);

const store = new PostgresStateStore({ connectionString: databaseUrl, schema });
const executor = new BullMQExecutor({
  connection: { host: redis.hostname, port: Number(redis.port || 6379) },
  prefix,
  registry,
});

// The supervisor keeps its handles in its state: plain data, so a restarted supervisor could
// poll them in a later run.
const Boss = Supervisor.extend({
  handles: z
    .array(z.object({ id: z.string(), threadId: z.string().nullable(), executor: z.string() }))
    .default([]),
});
type Boss = typeof Boss.State;

const plan = node((s: Boss) => ({ topics: s.topics.length > 0 ? s.topics : TOPICS }), {
  name: "plan",
});
const submit = node(
  async (s: Boss, ctx) => {
    const handles = await ctx.submit(
      s.topics.map((topic) => ({ graph: researcher, input: researchInput(topic) })),
      { executor },
    );
    return { handles };
  },
  { name: "submit" },
);
const collect = node(
  async (s: Boss, ctx) => {
    const results = await pollUntilDone(s.handles, (h) => ctx.pollAgents(h, { executor }));
    return {
      findings: results.map((r) => (r.state as { finalText: string | null }).finalText ?? ""),
    };
  },
  { name: "collect" },
);
const merge = node((s: Boss) => ({ report: mergeReport(s.question, s.findings) }), {
  name: "merge",
});

async function pollUntilDone(
  handles: DurableAgentHandle[],
  poll: (h: DurableAgentHandle[]) => Promise<(AgentResult | null)[]>,
): Promise<AgentResult[]> {
  const until = Date.now() + 60_000;
  for (;;) {
    const results = await poll(handles);
    if (results.every((r) => r !== null)) {
      const failed = results.filter((r) => r.status !== "completed");
      if (failed.length > 0) throw new Error(`researchers failed: ${JSON.stringify(failed)}`);
      return results;
    }
    if (Date.now() > until) throw new Error("the researchers did not finish in 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const supervisor = new Graph(Boss, { name: "supervisor", stateStore: store }).flow(
  START.to(plan),
  plan.to(submit),
  submit.to(collect),
  collect.to(merge),
  merge.to(END),
);

try {
  const { state } = await supervisor.invoke({ question: QUESTION }, { threadId: "tides-1" });
  console.log(state.report);
  const threads = (await store.listThreads()).map((t) => t.threadId);
  console.log(`${threads.filter((t) => t.startsWith("tides-1:bg:")).length} researcher threads`);
  const counts = await executor.queue.getJobCounts("completed", "failed");
  console.log(`${counts.completed} jobs completed, ${counts.failed} failed, on ${count} workers`);
} finally {
  // Stop the workers, then remove this run's Redis keys and PostgreSQL schema.
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null) return resolve();
          c.removeAllListeners("exit");
          c.on("exit", () => resolve());
          c.kill("SIGTERM");
        }),
    ),
  );
  await executor.queue.obliterate({ force: true });
  await executor.close();
  await store.close();
  const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}
