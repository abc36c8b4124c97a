/**
 * The studio's state as one hook: the graph, the threads, the thread and branch shown, its
 * snapshot (now, and at the chosen history event), the run going on, and a status line;
 * with the actions every panel calls (run, answer, fork, edit state, choose a thread, a
 * branch or an event). Errors of the server become `status` (`error: true`), never thrown.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  ApiError,
  type GraphView,
  type Json,
  type RunRequest,
  type StateSnapshot,
  type StudioApi,
  type ThreadInfo,
} from "./api.ts";
import { applyRunEvent, emptyRun, type LiveRun } from "./live-run.ts";

/** The stream modes the studio asks for: tokens for the text as it comes, tasks for the node running. */
export const RUN_MODES = ["updates", "custom", "tokens", "tasks"] as const;

export interface Status {
  text: string;
  error: boolean;
}

export interface Studio {
  api: StudioApi;
  graph: GraphView | null;
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
  refreshThreads(): Promise<void>;
  selectThread(threadId: string | null, branchId?: string): Promise<void>;
  selectBranch(branchId: string): Promise<void>;
  selectEvent(eventId: string | null): Promise<void>;
  /** Start a run (a new thread first when none is shown); resolves when it ended. */
  run(body: Omit<RunRequest, "branchId" | "modes">): Promise<void>;
  /** Fork at `eventId`; with `values`, write them into the new branch (`updateState`) too. */
  fork(eventId: string, values?: Record<string, Json> | null): Promise<void>;
  /** Write `values` into the branch shown (`updateState`); `null` when refused (status says why). */
  updateState(values: Record<string, Json>, asNode?: string | null): Promise<boolean>;
  setStatus(text: string, error?: boolean): void;
}

function describe(e: unknown): string {
  if (e instanceof ApiError) return `${e.type}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export function useStudio(api: StudioApi): Studio {
  const [graph, setGraph] = useState<GraphView | null>(null);
  const [threads, setThreads] = useState<ThreadInfo[]>([]);
  const [threadId, setThreadId] = useState<string | null>(null);
  const [branchId, setBranchId] = useState("main");
  const [snapshot, setSnapshot] = useState<StateSnapshot | null>(null);
  const [eventSnapshot, setEventSnapshot] = useState<StateSnapshot | null>(null);
  const [selectedEventId, setSelectedEventId] = useState<string | null>(null);
  const [revision, setRevision] = useState(0);
  const [live, setLive] = useState<LiveRun | null>(null);
  const [status, setStatusState] = useState<Status>({ text: "loading…", error: false });
  const running = useRef(false);
  const where = useRef({ threadId, branchId });
  where.current = { threadId, branchId };

  const setStatus = useCallback(
    (text: string, error = false) => setStatusState({ text, error }),
    [],
  );
  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await api.threads());
    } catch (e) {
      setStatus(describe(e), true);
    }
  }, [api, setStatus]);

  /** Reload the branch's snapshot (and bump `revision` so that the panels reload theirs). */
  const reload = useCallback(
    async (id: string | null, branch: string) => {
      setRevision((r) => r + 1);
      if (!id) {
        setSnapshot(null);
        return;
      }
      try {
        setSnapshot(await api.state(id, branch));
      } catch (e) {
        if (e instanceof ApiError && e.type === "UnknownThread") setSnapshot(null);
        else setStatus(describe(e), true);
      }
    },
    [api, setStatus],
  );

  useEffect(() => {
    api.graph().then(
      (g) => {
        setGraph(g);
        setStatus("ready");
      },
      (e) => setStatus(describe(e), true),
    );
    void refreshThreads();
  }, [api, refreshThreads, setStatus]);

  const selectThread = useCallback(
    async (id: string | null, branch = "main") => {
      setThreadId(id);
      setBranchId(branch);
      setSelectedEventId(null);
      setEventSnapshot(null);
      setLive(null);
      await reload(id, branch);
    },
    [reload],
  );
  const selectBranch = useCallback(
    (branch: string) => selectThread(where.current.threadId, branch),
    [selectThread],
  );
  const selectEvent = useCallback(
    async (eventId: string | null) => {
      setSelectedEventId(eventId);
      const id = where.current.threadId;
      if (!eventId || !id) {
        setEventSnapshot(null);
        return;
      }
      try {
        setEventSnapshot(await api.state(id, where.current.branchId, eventId));
      } catch (e) {
        setStatus(describe(e), true);
      }
    },
    [api, setStatus],
  );

  const run = useCallback(
    async (body: Omit<RunRequest, "branchId" | "modes">) => {
      if (running.current) return;
      running.current = true;
      setStatus("running…");
      setSelectedEventId(null);
      setEventSnapshot(null);
      let id = where.current.threadId;
      const branch = where.current.branchId;
      try {
        if (!id) {
          id = await api.createThread();
          setThreadId(id);
        }
        let current = emptyRun();
        setLive(current);
        const outcome = await api.streamRun(
          id,
          { ...body, branchId: branch, modes: [...RUN_MODES] },
          {
            onStart: (r) => {
              current = { ...current, runId: r.runId };
              setLive(current);
              void refreshThreads();
            },
            onEvent: (e) => {
              current = applyRunEvent(current, e);
              setLive(current);
              if (e.mode === "updates") setRevision((r) => r + 1);
            },
          },
        );
        // The thread as stored now, before the live view goes: no flash of the old state.
        await reload(id, branch);
        setLive(null);
        if (outcome.kind === "error") {
          setStatus(`run failed: ${outcome.error.type}: ${outcome.error.message}`, true);
        } else setStatus(`run ${outcome.end.status ?? "ended"}`);
      } catch (e) {
        setLive(null);
        await reload(id, branch);
        setStatus(describe(e), true);
      } finally {
        running.current = false;
        await refreshThreads();
      }
    },
    [api, reload, refreshThreads, setStatus],
  );

  const updateState = useCallback(
    async (values: Record<string, Json>, asNode?: string | null) => {
      const { threadId: id, branchId: branch } = where.current;
      if (!id) return false;
      try {
        setSnapshot(await api.updateState(id, branch, values, asNode));
        setRevision((r) => r + 1);
        setStatus("state updated");
        return true;
      } catch (e) {
        setStatus(describe(e), true);
        return false;
      }
    },
    [api, setStatus],
  );

  const fork = useCallback(
    async (eventId: string, values?: Record<string, Json> | null) => {
      const id = where.current.threadId;
      if (!id) return;
      try {
        const branch = await api.fork(id, eventId);
        await selectThread(id, branch.branchId);
        if (values && Object.keys(values).length) {
          setSnapshot(await api.updateState(id, branch.branchId, values));
          setRevision((r) => r + 1);
        }
        setStatus(`forked branch ${branch.branchId} at ${eventId}`);
        await refreshThreads();
      } catch (e) {
        setStatus(describe(e), true);
      }
    },
    [api, selectThread, refreshThreads, setStatus],
  );

  return useMemo(
    () => ({
      api,
      graph,
      threads,
      threadId,
      branchId,
      snapshot,
      eventSnapshot,
      selectedEventId,
      revision,
      live,
      status,
      refreshThreads,
      selectThread,
      selectBranch,
      selectEvent,
      run,
      fork,
      updateState,
      setStatus,
    }),
    [
      api,
      graph,
      threads,
      threadId,
      branchId,
      snapshot,
      eventSnapshot,
      selectedEventId,
      revision,
      live,
      status,
      refreshThreads,
      selectThread,
      selectBranch,
      selectEvent,
      run,
      fork,
      updateState,
      setStatus,
    ],
  );
}
