/**
 * PLACEHOLDER (studio-data replaces this file, keeping its export and props): the graph view.
 * Lists the graph's nodes and marks the ones running now (`live.running`) and next
 * (`snapshot.next`).
 */
import type { PanelProps } from "../panel-props.ts";

/** Props of {@link GraphPanel}: the shell's {@link PanelProps}. */
export type GraphPanelProps = PanelProps;

export function GraphPanel({ graph, live, snapshot }: GraphPanelProps) {
  if (!graph) return <p class="muted">loading the graph…</p>;
  const running = live?.running ?? [];
  const next = snapshot?.next ?? [];
  return (
    <ul class="graph-nodes">
      {graph.nodes.map((n) => (
        <li
          key={n}
          data-node={n}
          class={running.includes(n) ? "running" : next.includes(n) ? "next" : ""}
        >
          {n}
        </li>
      ))}
    </ul>
  );
}
