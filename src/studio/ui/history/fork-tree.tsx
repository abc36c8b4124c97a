/** The thread's branches as a tree: each fork under the branch it was made from, where. */
import type { BranchNode } from "../api.ts";

export interface ForkTreeProps {
  branches: BranchNode[];
  current: string;
  onSelectBranch(branchId: string): void;
}

function Branch({
  node,
  current,
  onSelectBranch,
}: { node: BranchNode } & Omit<ForkTreeProps, "branches">) {
  return (
    <li data-branch={node.branchId} class={node.branchId === current ? "current" : ""}>
      <button
        type="button"
        class="row-button branch-button"
        onClick={() => onSelectBranch(node.branchId)}
      >
        <span class="branch-name">{node.branchId}</span>{" "}
        <span class="muted">
          {node.parent
            ? `from ${node.parent.branchId} #${node.parent.seq}${node.parent.summary ? ` · ${node.parent.summary}` : ""}`
            : `${node.lastSeq} events`}
        </span>
      </button>
      {node.children.length ? (
        <ul>
          {node.children.map((c) => (
            <Branch key={c.branchId} node={c} current={current} onSelectBranch={onSelectBranch} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function ForkTree({ branches, current, onSelectBranch }: ForkTreeProps) {
  const single = branches.length === 1 && branches[0]!.children.length === 0;
  if (branches.length === 0 || single) return null;
  return (
    <section class="fork-tree">
      <h3>Branches</h3>
      <ul>
        {branches.map((b) => (
          <Branch key={b.branchId} node={b} current={current} onSelectBranch={onSelectBranch} />
        ))}
      </ul>
    </section>
  );
}
