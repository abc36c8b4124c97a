// Runs on workers, in one command: two servers (in this process, each with a BullMQRunQueue,
// as `nodestep serve --queue` makes them) and one `nodestep worker` process, on PostgreSQL
// and Redis. A run started on server A streams to its client; a second client joins it on
// server B from the event id it saw last; B lists it. Needs Redis (REDIS_URL, default
// redis://127.0.0.1:6379) and PostgreSQL (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test); it uses its own Redis key prefix and PostgreSQL
// schema, and removes both at the end. See docs/workers.md.
//
//   node --import tsx examples/runs-on-workers/main.ts

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { BullMQRunQueue } from "nodestep/bullmq";
import { PostgresStateStore } from "nodestep/postgres";
import { createServer, listen } from "nodestep/server";
import pg from "pg";
import { buildReport } from "./agent.js";

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new URL(redisUrl);
const connection = { host: redis.hostname, port: Number(redis.port || 6379) };
const tag = randomBytes(4).toString("hex");
const prefix = `nodestep-example-${tag}`;
const schema = `nodestep_example_${tag}`;

// The store every process shares (its tables made once, before the worker opens them).
const stores = [0, 1].map(() => new PostgresStateStore({ connectionString: databaseUrl, schema }));
await stores[0]!.getBranch("setup", "main");

// A worker, as you would start it on another machine: `nodestep worker <module>#<export>`.
const bin = fileURLToPath(new URL("../../bin/nodestep.js", import.meta.url));
const agent = fileURLToPath(new URL("./agent.ts", import.meta.url));
const worker = spawn(
  process.execPath,
  [
    bin,
    "worker",
    `${agent}#buildReport`,
    "--store",
    `${databaseUrl}?schema=${schema}`,
    "--redis",
    redisUrl,
    "--queue-prefix",
    prefix,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise<void>((resolve, reject) => {
  worker.stdout!.on("data", (d: Buffer) => {
    if (d.toString().includes("nodestep worker")) resolve();
  });
  worker.once("exit", (code) => reject(new Error(`the worker exited with ${code}`)));
});

// Two servers on the same queue: what `nodestep serve --queue redis://…` runs.
const queues = [0, 1].map(() => new BullMQRunQueue({ connection, prefix }));
const servers = await Promise.all(
  [0, 1].map((i) =>
    listen(createServer({ graph: buildReport({ stateStore: stores[i]! }), runQueue: queues[i]! }), {
      port: 0,
    }),
  ),
);
const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];

interface Event {
  id: string;
  event: string;
  data: string;
}
const eventsOf = (text: string): Event[] =>
  text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => {
      const field = (name: string) =>
        block
          .split("\n")
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? "";
      return { id: field("id"), event: field("event"), data: field("data") };
    });
const shown = (e: Event) => {
  const data = JSON.parse(e.data) as { data?: unknown; state?: { report?: unknown } };
  if (e.event === "custom") return `${e.id} custom ${JSON.stringify(data.data)}`;
  if (e.event === "end") return `${e.id} end ${JSON.stringify(data.state?.report)}`;
  return `${e.id} ${e.event}`;
};

try {
  const res = await fetch(`${a.url}/api/threads/t1/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: { topic: "tides" } }),
  });
  const runId = res.headers.get("x-nodestep-run-id");
  const seen = eventsOf(await res.text());
  console.log("on server A:");
  for (const e of seen) console.log(`  ${shown(e)}`);

  const joined = await fetch(`${b.url}/api/threads/t1/runs/${runId}/stream`, {
    headers: { "last-event-id": "3" },
  });
  console.log("joined on server B after event 3:");
  for (const e of eventsOf(await joined.text())) console.log(`  ${shown(e)}`);

  const list = (await (await fetch(`${b.url}/api/threads/t1/runs`)).json()) as {
    runs: { runId: string; status: string }[];
  };
  console.log(
    `server B lists: ${list.runs.map((r) => `${r.runId === runId ? "the run" : r.runId} ${r.status}`).join(", ")}`,
  );
} finally {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(queues.map((q) => q.close()));
  await new Promise((resolve) => {
    worker.once("exit", resolve);
    worker.kill("SIGTERM");
  });
  await Promise.all(stores.map((s) => s.close()));
  const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
  const keys = new Redis(connection);
  let cursor = "0";
  do {
    const [next, found] = await keys.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (found.length > 0) await keys.del(...found);
  } while (cursor !== "0");
  keys.disconnect();
}
