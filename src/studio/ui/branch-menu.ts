/**
 * The branches the header's branch menu lists: every branch of the thread's fork trees
 * (`GET /api/threads/:id/branches`), each before its forks, in the server's order — forks
 * with no events of their own included — and the branch shown, if the trees do not hold it
 * (yet: a fork just made, or trees not loaded).
 */
import type { BranchNode } from "./api.ts";

/** The menu's branch ids, depth first, with `current` last when the trees lack it. */
export function branchMenu(trees: readonly BranchNode[], current: string): string[] {
  const out: string[] = [];
  const walk = (nodes: readonly BranchNode[]) => {
    for (const n of nodes) {
      if (!out.includes(n.branchId)) out.push(n.branchId);
      walk(n.children);
    }
  };
  walk(trees);
  if (!out.includes(current)) out.push(current);
  return out;
}
