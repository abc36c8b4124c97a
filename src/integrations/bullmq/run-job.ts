/**
 * What a queued top-level run's BullMQ job carries: plain JSON, so that it crosses processes.
 *
 * @module
 */
import { z } from "zod";

/** Default BullMQ queue name of top-level runs (sub-agents use `"nodestep-agents"`). */
export const DEFAULT_RUN_QUEUE = "nodestep-runs";

const STREAM_MODES = [
  "updates",
  "values",
  "custom",
  "tokens",
  "messages",
  "tasks",
  "checkpoints",
  "debug",
] as const;

/** The data of one run job (version 1). The job's id is the run's id. */
export const runJobSchema = z.object({
  v: z.literal(1),
  kind: z.literal("run"),
  runId: z.string().min(1),
  /** The name of the graph the server serves; the worker refuses a job of another graph. */
  graph: z.string(),
  /**
   * The run's model choice (a server run's `model`, one of `nodestep serve --models`);
   * absent: the served graph's own model. The worker runs the graph it has under that name
   * (`RunWorkerOptions.models`), and refuses a name it has not.
   */
  model: z.string().min(1).optional(),
  threadId: z.string().min(1),
  branchId: z.string().min(1),
  /** The run's input (`null`: continue the thread). */
  input: z.record(z.string(), z.json()).nullable(),
  resume: z.record(z.string(), z.json()).optional(),
  modes: z.array(z.enum(STREAM_MODES)).min(1),
  onBusy: z.enum(["reject", "enqueue", "interrupt", "rollback"]).optional(),
  onBusyTimeoutMs: z.number().int().nonnegative().optional(),
  /** Set by the first worker that takes the job: the branch's `lastSeq` before the run. */
  startSeq: z.number().int().nonnegative().optional(),
  /**
   * Set by a worker that hands the run back to the queue (it closes with the run going): the
   * branch's `lastSeq` once the run it stopped had ended there. The worker that takes the run
   * over continues it when the run's last end in the store is at or before this seq, and takes
   * a later end (`run_finished`, `run_failed`) as the run's own: it is not run again.
   */
  handedOverAt: z.number().int().nonnegative().optional(),
  /** How many times a worker found the thread busy while taking the run over. */
  busyRetries: z.number().int().nonnegative().optional(),
});

/** The data of one run job. */
export type RunJobData = z.infer<typeof runJobSchema>;
