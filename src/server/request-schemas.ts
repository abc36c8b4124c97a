/**
 * The request bodies of the server's thread and run routes (zod schemas), and what a run
 * body turns into: the run's input and its options.
 *
 * @module
 */
import { z } from "zod";
import { HumanMessage } from "../chat/messages.js";
import { BUSY_POLICIES, MAX_BUSY_TIMEOUT_MS } from "../graph/busy.js";

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

/** A thread, branch, run or chat id: 1–200 characters, no `/`, no control characters. */
export const Id = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (s) => !s.includes("/") && !/\p{Cc}/u.test(s),
    "must not contain '/' or control characters",
  );

/** Breakpoints of one run (`interruptBefore` / `interruptAfter`): node names, or `"*"` for every node. */
const Breakpoints = z.union([z.literal("*"), z.array(z.string().min(1).max(200)).max(1000)], {
  error: 'must be a list of node names (at most 1,000) or "*"',
});

/** The body of `POST …/runs` and `POST …/runs/stream`. */
export const RunBody = z
  .strictObject({
    input: z.record(z.string(), z.json()).nullable().optional(),
    message: z.string().min(1).optional(),
    resume: z.record(z.string(), z.json()).optional(),
    branchId: Id.optional(),
    modes: z.array(z.enum(STREAM_MODES)).min(1).optional(),
    onBusy: z.enum(BUSY_POLICIES).optional(),
    onBusyTimeoutMs: z.number().int().min(0).max(MAX_BUSY_TIMEOUT_MS).optional(),
    detach: z.boolean().optional(),
    onDisconnect: z.enum(["cancel", "continue"]).optional(),
    model: z.string().min(1).max(200).optional(),
    interruptBefore: Breakpoints.optional(),
    interruptAfter: Breakpoints.optional(),
  })
  .refine(
    (b) => b.onBusyTimeoutMs === undefined || (b.onBusy !== undefined && b.onBusy !== "reject"),
    {
      message:
        'onBusyTimeoutMs is how long onBusy "enqueue", "interrupt" or "rollback" waits: give one of them with it',
    },
  )
  .refine((b) => !(b.input != null && b.message !== undefined), {
    message: "give either input or message, not both",
  })
  .refine((b) => !(b.resume !== undefined && (b.input != null || b.message !== undefined)), {
    message: "resume answers continue a paused run: send them without input or message",
  });
/** A parsed {@link RunBody}. */
export type RunBody = z.infer<typeof RunBody>;

/** The body of `POST /api/threads`. */
export const CreateThreadBody = z.strictObject({ threadId: Id.optional() });
/** The body of `POST /api/threads/:threadId/fork`. */
export const ForkBody = z.strictObject({ eventId: z.string().min(1), branchId: Id.optional() });

/** A run body's input: `message` as one human message, else `input` (`null` when neither). */
export function inputOf(body: RunBody): Record<string, unknown> | null {
  if (body.message !== undefined) return { messages: [HumanMessage({ content: body.message })] };
  return body.input ?? null;
}

/** A run body's run options (resume, busy policy, breakpoints), with `context` when given. */
export function runExtras(body: RunBody, context: unknown) {
  return {
    ...(body.resume !== undefined ? { resume: body.resume } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(body.onBusy !== undefined ? { onBusy: body.onBusy } : {}),
    ...(body.onBusyTimeoutMs !== undefined ? { onBusyTimeoutMs: body.onBusyTimeoutMs } : {}),
    ...(body.interruptBefore !== undefined ? { interruptBefore: body.interruptBefore } : {}),
    ...(body.interruptAfter !== undefined ? { interruptAfter: body.interruptAfter } : {}),
  };
}
