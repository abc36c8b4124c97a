/**
 * `nodestep/bullmq`: work on BullMQ workers, in other processes or machines that share a
 * Redis and a state store (PostgreSQL).
 *
 * - Sub-agents: {@link BullMQExecutor} is the parent's side (`ctx.submit(tasks, { executor })`,
 *   `ctx.pollAgents(handles, { executor })`, `executor.cancel(handles)`); {@link runWorker}
 *   starts a worker.
 * - Top-level runs (docs/workers.md): {@link BullMQRunQueue} is the servers' side
 *   (`createServer({ graph, runQueue })`, `nodestep serve --queue`); {@link runRunWorker}
 *   starts a worker (`nodestep worker`).
 *
 * Needs the optional peer dependencies `bullmq` and `ioredis` (`npm install bullmq ioredis`).
 *
 * @module
 */
export { BullMQExecutor, type BullMQExecutorOptions } from "./executor.js";
export { DEFAULT_PREFIX, DEFAULT_QUEUE, type GraphRegistry } from "./job-data.js";
export type { RunJobResult } from "./process-run.js";
export { DEFAULT_RUN_STREAM_LIMITS, type RunStreamLimits } from "./run-channel.js";
export { DEFAULT_RUN_QUEUE } from "./run-job.js";
export { BullMQRunQueue, type BullMQRunQueueOptions } from "./run-queue.js";
export { type RunWorker, type RunWorkerOptions, runRunWorker } from "./run-worker.js";
export { runWorker, type WorkerOptions } from "./worker.js";
