import { describe, expect, it } from "vitest";
import type { BranchNode } from "./api.ts";
import { branchMenu } from "./branch-menu.ts";

const at = (branchId: string, seq: number) => ({
  branchId,
  seq,
  eventId: `t/${branchId}/${seq}`,
  summary: "step_committed",
});

describe("the header's branch menu", () => {
  it("lists every branch of the fork trees, forks with no events of their own included", () => {
    const trees: BranchNode[] = [
      {
        branchId: "main",
        parent: null,
        lastSeq: 6,
        children: [
          {
            branchId: "try-b",
            parent: at("main", 2),
            lastSeq: 2,
            children: [{ branchId: "deep", parent: at("try-b", 2), lastSeq: 4, children: [] }],
          },
          { branchId: "empty-fork", parent: at("main", 4), lastSeq: 4, children: [] },
        ],
      },
    ];
    // On main (switched away from the forks), the forks stay listed.
    expect(branchMenu(trees, "main")).toEqual(["main", "try-b", "deep", "empty-fork"]);
    expect(branchMenu(trees, "deep")).toEqual(["main", "try-b", "deep", "empty-fork"]);
  });

  it("adds the branch shown when the trees do not hold it (not loaded yet, or just made)", () => {
    expect(branchMenu([], "main")).toEqual(["main"]);
    expect(
      branchMenu([{ branchId: "main", parent: null, lastSeq: 1, children: [] }], "new-fork"),
    ).toEqual(["main", "new-fork"]);
  });
});
