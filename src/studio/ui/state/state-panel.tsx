/**
 * The State tab: the branch's state now, or after the history event chosen, as a tree with
 * one collapsible row per field; its status and what runs next; and the actions on it (edit,
 * fork) given as `children`.
 */
import type { ComponentChildren } from "preact";
import type { StateSnapshot } from "../api.ts";
import { JsonTree } from "./json-tree.tsx";

export interface StatePanelProps {
  /** The state shown (now, or at the chosen event). */
  snapshot: StateSnapshot | null;
  /** The event it is the state after, or `null` for now. */
  eventId: string | null;
  children?: ComponentChildren;
}

export function StatePanel({ snapshot, eventId, children }: StatePanelProps) {
  if (!snapshot) return <p class="muted">no thread yet</p>;
  return (
    <div class="state-panel">
      <div class="state-label" data-testid="state-label">
        {eventId
          ? `after ${eventId}`
          : `now · ${snapshot.status ?? "empty"} · next: ${snapshot.next.join(", ") || "none"}`}
      </div>
      {children}
      <div class="state-tree">
        {Object.entries(snapshot.state).map(([k, v]) => (
          <JsonTree key={k} name={k} path={k} value={v} open={0} />
        ))}
      </div>
    </div>
  );
}
