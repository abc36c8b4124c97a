/**
 * `nodestep/bullmq`: sub-agents on BullMQ workers, in other processes or machines that share
 * a Redis and a state store (PostgreSQL). {@link BullMQExecutor} is the parent's side
 * (`ctx.submit(tasks, { executor })`, `ctx.pollAgents(handles, { executor })`);
 * {@link runWorker} starts a worker. Needs the optional peer dependencies `bullmq` and
 * `ioredis` (`npm install bullmq ioredis`).
 *
 * @module
 */
export { BullMQExecutor, type BullMQExecutorOptions } from "./executor.js";
export { DEFAULT_PREFIX, DEFAULT_QUEUE, type GraphRegistry } from "./job-data.js";
export { runWorker, type WorkerOptions } from "./worker.js";
