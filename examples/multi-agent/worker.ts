// A worker of the multi-agent example: runs the researchers that workers.ts submits. Start as
// many as you like, on any machine that reaches the Redis and the PostgreSQL:
//
//   NODESTEP_PREFIX=... NODESTEP_SCHEMA=... node --import tsx examples/multi-agent/worker.ts
//
// REDIS_URL (default redis://127.0.0.1:6379) and DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test) say where they are; NODESTEP_PREFIX (Redis keys) and
// NODESTEP_SCHEMA (PostgreSQL schema) must be the supervisor's. SIGTERM stops it after its
// running jobs.

import { runWorker } from "nodestep/bullmq";
import { PostgresStateStore } from "nodestep/postgres";
import { registry } from "./team.js";

const redis = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const stateStore = new PostgresStateStore({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  schema: process.env.NODESTEP_SCHEMA ?? "nodestep",
});
const worker = await runWorker({
  connection: { host: redis.hostname, port: Number(redis.port || 6379) },
  prefix: process.env.NODESTEP_PREFIX ?? "bull",
  registry,
  stateStore,
  concurrency: 4,
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void worker
    .close()
    .then(() => stateStore.close())
    .then(() => process.exit(0));
});
