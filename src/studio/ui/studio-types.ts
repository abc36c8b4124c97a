/**
 * The shape of the studio's state and actions, as `useStudio` gives them to every panel,
 * and the stream modes its runs ask for.
 */
import type {
  GraphView,
  Json,
  RunRequest,
  StateSnapshot,
  StudioApi,
  ThreadInfo,
  ToolView,
} from "./api.ts";
import type { LiveRun } from "./live-run.ts";
import type { Breakpoints } from "./panel-props.ts";

/** The stream modes the studio asks for: tokens for the text as it comes, tasks for the node running. */
export const RUN_MODES = ["updates", "custom", "tokens", "tasks"] as const;

/** The status line: its text, and whether it tells of an error. */
export interface Status {
  text: string;
  error: boolean;
}

/** The studio's state and the actions every panel calls (see `useStudio`). */
export interface Studio {
  api: StudioApi;
  graph: GraphView | null;
  /** The tools of the graph's model nodes (for approval forms). */
  tools: ToolView[];
  threads: ThreadInfo[];
  threadId: string | null;
  branchId: string;
  snapshot: StateSnapshot | null;
  /** The state after the chosen event (`null` when none is chosen). */
  eventSnapshot: StateSnapshot | null;
  selectedEventId: string | null;
  revision: number;
  live: LiveRun | null;
  status: Status;
  /** Why the last run failed (its error, or why the server refused it), `null` when it did not. */
  failure: string | null;
  /** The server answered 401: the page needs an API key. */
  needsKey: boolean;
  breakpoints: Breakpoints;
  toggleBreakpoint(node: string, when: "before" | "after"): void;
  /** Stop the run going on. */
  stop(): Promise<void>;
  /** Load everything again (after an API key was given). */
  restart(): void;
  refreshThreads(): Promise<void>;
  selectThread(threadId: string | null, branchId?: string): Promise<void>;
  selectBranch(branchId: string): Promise<void>;
  selectEvent(eventId: string | null): Promise<void>;
  /** Start a run (a new thread first when none is shown); resolves when it ended, to its failure or `null`. */
  run(body: Omit<RunRequest, "branchId" | "modes">): Promise<string | null>;
  /**
   * {@link run}, telling also whether the server refused the run before it started (`refused`:
   * a 4xx answer, e.g. an input that does not fit the state; `failure` then is its message).
   */
  send(
    body: Omit<RunRequest, "branchId" | "modes">,
  ): Promise<{ failure: string | null; refused: boolean }>;
  /** Fork at `eventId`; with `values`, write them into the new branch (`updateState`) too. Resolves to the error, or `null`. */
  fork(eventId: string, values?: Record<string, Json> | null): Promise<string | null>;
  /** Write `values` into the branch shown (`updateState`); resolves to the error, or `null` when done. */
  updateState(values: Record<string, Json>, asNode?: string | null): Promise<string | null>;
  setStatus(text: string, error?: boolean): void;
}
