/**
 * The thread and branch shown, in the page's address: `?thread=<id>&branch=<id>`, so that a
 * thread can be reloaded, bookmarked and shared. Read once on load; written with
 * `history.replaceState` (no new history entry) whenever the thread or branch shown changes.
 * Other parameters of the address are kept.
 */

/** The thread and branch an address names: `threadId` `null` without `thread`, `branchId` `"main"` without `branch`. */
export function readLocation(search: string): { threadId: string | null; branchId: string } {
  const params = new URLSearchParams(search);
  const threadId = params.get("thread") || null;
  const branchId = (threadId && params.get("branch")) || "main";
  return { threadId, branchId };
}

/**
 * The query string (`"?…"`, or `""` when nothing is left) of `search` naming `threadId` and
 * `branchId`; without a thread, neither parameter.
 *
 * @example locationFor("?x=1", "t-1", "alt") // "?x=1&thread=t-1&branch=alt"
 */
export function locationFor(search: string, threadId: string | null, branchId: string): string {
  const params = new URLSearchParams(search);
  params.delete("thread");
  params.delete("branch");
  if (threadId) {
    params.set("thread", threadId);
    params.set("branch", branchId);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}
