/**
 * What the studio says of a failure: a server error as one line, and why a branch's last run
 * failed, from its stored `run_failed` event.
 */
import { ApiError, type StudioApi } from "./api.ts";

/** An error as the status line shows it (`"<type>: <message>"` for a server error). */
export function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.type}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Why the branch's last run failed: its `run_failed` event's error, as `Name: message`. */
export async function lastFailure(
  api: StudioApi,
  threadId: string,
  branchId: string,
): Promise<string | null> {
  try {
    const events = await api.history(threadId, branchId);
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (e?.type !== "run_failed") continue;
      const error = (e.data as { error?: { name?: string; message?: string } } | undefined)?.error;
      return error ? `${error.name ?? "Error"}: ${error.message ?? ""}` : null;
    }
  } catch {
    // the history is only for the message
  }
  return null;
}
