/**
 * In place of the message box while the thread has work pending (`next` is not empty): a new
 * message then would be stored in the middle of a paused or failed turn. It says why, and
 * offers what fits: answer the interrupts above, **Continue** (past a breakpoint, or the failed
 * or stopped step again), or **Fork from an earlier event…** (opens History).
 */
import type { StateSnapshot } from "../api.ts";

export interface PausedGuardProps {
  snapshot: StateSnapshot;
  /** The last run's error, when it failed. */
  failure: string | null;
  running: boolean;
  onContinue(): void;
  onFork(): void;
}

export function PausedGuard({ snapshot, failure, running, onContinue, onFork }: PausedGuardProps) {
  const next = snapshot.next.join(", ");
  const bp = snapshot.breakpoint;
  let why: string;
  if (snapshot.interrupts.length > 0) {
    why = `The run is paused at ${next}, waiting for the answer${snapshot.interrupts.length > 1 ? "s" : ""} above.`;
  } else if (bp) {
    why = `The run stopped at a breakpoint ${bp.when} ${bp.nodes.join(", ")}; ${next} runs next.`;
  } else if (snapshot.status === "failed" && failure?.startsWith("RunCancelledError:")) {
    why = `The last run was stopped before ${next} finished.`;
  } else if (snapshot.status === "failed") {
    why = `The last run failed before ${next} finished${failure ? `: ${failure}` : "."}`;
  } else {
    // A fork from an event in the middle of a run, or a run cut off (its process ended).
    why = `The thread stands in the middle of a run: ${next} runs next.`;
  }
  return (
    <div class="paused-guard" data-testid="paused-guard">
      <div class="why">{why}</div>
      <div class="muted">
        A new message now would land in the middle of this turn. Finish the turn first, or fork the
        thread from an earlier event and send your message there.
      </div>
      <div class="answer-row">
        {snapshot.interrupts.length === 0 ? (
          <button type="button" class="primary continue" disabled={running} onClick={onContinue}>
            {snapshot.status === "failed" ? `Continue (run ${next} again)` : "Continue"}
          </button>
        ) : null}
        <button type="button" class="fork-instead" disabled={running} onClick={onFork}>
          Fork from an earlier event…
        </button>
      </div>
    </div>
  );
}
