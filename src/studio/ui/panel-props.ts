/**
 * The props every side panel of the shell gets (app.tsx mounts GraphPanel, HistoryPanel,
 * StatePanel and MetricsPanel with them). A panel reads what it needs and ignores the rest;
 * it reloads its data when `revision` changes (the shell bumps it after every committed step
 * of a run, an answer, a fork, a state edit).
 */
import type { GraphView, StateSnapshot, StudioApi } from "./api.ts";
import type { LiveRun } from "./live-run.ts";

/** Breakpoints for the next runs, by node name (`interruptBefore` / `interruptAfter`). */
export interface Breakpoints {
  before: string[];
  after: string[];
}

export interface PanelProps {
  /** The server's API client. */
  api: StudioApi;
  /** `GET /api/graph`, once loaded (`null` before). */
  graph: GraphView | null;
  /** The thread shown, `null` for a new thread not yet started. */
  threadId: string | null;
  /** Its branch shown (`"main"` unless forked). */
  branchId: string;
  /** A counter the shell bumps whenever the thread changed: reload on change. */
  revision: number;
  /** The branch's latest snapshot (`null` before a thread is chosen or loaded). */
  snapshot: StateSnapshot | null;
  /** The run going on now (its live stream events, the node running), or `null`. */
  live: LiveRun | null;
  /** The history event chosen (time travel), `null` for now. */
  selectedEventId: string | null;
  /** Choose a history event (`null`: back to now). */
  onSelectEvent(eventId: string | null): void;
  /** Show another branch of the thread (after a fork, or from a branch list). */
  onSelectBranch(branchId: string): void;
  /** The breakpoints the next runs get (to draw them). */
  breakpoints: Breakpoints;
  /** Set or clear a breakpoint (a graph drawing may offer it on its nodes). */
  onToggleBreakpoint(node: string, when: "before" | "after"): void;
}
