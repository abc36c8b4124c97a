/**
 * A run that resumes a paused thread fails when an answer is refused: an approval answer of
 * the wrong shape (`ValueError` from `ApprovalMiddleware`), edited tool arguments the tool's
 * schema rejects (`ValidationError`), an answer a node checks and refuses. That is the
 * client's mistake, not the server's: {@link answerError} turns such a failure into
 * `400 InvalidAnswer` (the thread stays paused at the same interrupts, and the answer can be
 * given again). Other failures are left as they are.
 *
 * @module
 */
import { classNames, errorAnswer, HttpError } from "./errors.js";

/** The error classes that mean "the answer given was refused", found along an error's `cause` chain. */
const ANSWER_ERRORS = new Set(["ValueError", "ValidationError", "StateUpdateError"]);

/** Whether `e` or an error in its `cause` chain (at most 10 deep) is of a class in {@link ANSWER_ERRORS}. */
function causedByBadInput(e: unknown): boolean {
  let current: unknown = e;
  for (let depth = 0; depth < 10 && current instanceof Error; depth++) {
    if (classNames(current).some((n) => ANSWER_ERRORS.has(n))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The error to answer with for a failed run: for a run with `resume` answers that failed on
 * bad input, and would otherwise answer 500 (a tool's failure wrapping it),
 * `HttpError(400, "InvalidAnswer", <the failure's message>)`; otherwise `e` itself (an error
 * that has a 4xx status already keeps it: an unknown interrupt key stays `400 ValueError`).
 */
export function answerError(e: unknown, resumed: boolean): unknown {
  if (!resumed || errorAnswer(e).status !== 500 || !causedByBadInput(e)) return e;
  return new HttpError(400, "InvalidAnswer", (e as Error).message);
}
