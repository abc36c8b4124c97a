/**
 * The studio's state as one hook: the graph, the threads, the thread and branch shown, its
 * snapshot (now, and at the chosen history event), the run going on, and a status line;
 * with the actions every panel calls (run, answer, fork, edit state, choose a thread, a
 * branch or an event). Errors of the server become `status` (`error: true`), never thrown.
 * The thread and branch shown are kept in the page's address (`?thread=&branch=`, see
 * url-state.ts) and restored from it on load.
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
  type ToolView,
} from "./api.ts";
import { applyRunEvent, emptyRun, type LiveRun } from "./live-run.ts";
import type { Breakpoints } from "./panel-props.ts";
import { describe, lastFailure } from "./run-failure.ts";
import { RUN_MODES, type Status, type Studio } from "./studio-types.ts";
import { locationFor, readLocation } from "./url-state.ts";

export { RUN_MODES, type Status, type Studio } from "./studio-types.ts";

export function useStudio(api: StudioApi): Studio {
  const [graph, setGraph] = useState<GraphView | null>(null);
  const [threads, setThreads] = useState<ThreadInfo[]>([]);
  // The thread and branch of the page's address (url-state.ts), then kept in it.
  const [initial] = useState(() => readLocation(location.search));
  const [threadId, setThreadId] = useState<string | null>(initial.threadId);
  const [branchId, setBranchId] = useState(initial.branchId);
  const [snapshot, setSnapshot] = useState<StateSnapshot | null>(null);
  const [eventSnapshot, setEventSnapshot] = useState<StateSnapshot | null>(null);
  const [selectedEventId, setSelectedEventId] = useState<string | null>(null);
  const [revision, setRevision] = useState(0);
  const [live, setLive] = useState<LiveRun | null>(null);
  const [status, setStatusState] = useState<Status>({ text: "loading…", error: false });
  const [tools, setTools] = useState<ToolView[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [needsKey, setNeedsKey] = useState(false);
  const [breakpoints, setBreakpoints] = useState<Breakpoints>({ before: [], after: [] });
  const [generation, setGeneration] = useState(0);
  const running = useRef(false);
  const where = useRef({ threadId, branchId });
  where.current = { threadId, branchId };

  const setStatus = useCallback(
    (text: string, error = false) => setStatusState({ text, error }),
    [],
  );
  /** Show an error in the status line (a 401 asks for the API key); returns its text. */
  const fail = useCallback(
    (e: unknown) => {
      if (e instanceof ApiError && e.status === 401) setNeedsKey(true);
      setStatus(describe(e), true);
      return describe(e);
    },
    [setStatus],
  );
  const refreshThreads = useCallback(async () => {
    try {
      setThreads(await api.threads());
    } catch (e) {
      fail(e);
    }
  }, [api, fail]);

  /** Reload the branch's snapshot (and bump `revision` so that the panels reload theirs). */
  const reload = useCallback(
    async (id: string | null, branch: string) => {
      setRevision((r) => r + 1);
      if (!id) {
        setSnapshot(null);
        return;
      }
      try {
        const snap = await api.state(id, branch);
        setSnapshot(snap);
        if (snap.status === "failed") setFailure(await lastFailure(api, id, branch));
        else setFailure(null);
      } catch (e) {
        if (e instanceof ApiError && e.type === "UnknownThread") setSnapshot(null);
        else fail(e);
      }
    },
    [api, fail],
  );

  useEffect(() => {
    setNeedsKey(false);
    api.graph().then(
      (g) => {
        setGraph(g);
        setStatus("ready");
      },
      (e) => fail(e),
    );
    api.tools().then(setTools, () => setTools([]));
    void refreshThreads();
  }, [api, refreshThreads, setStatus, fail, generation]);
  // The thread of the address on load (and again after an API key was given).
  useEffect(() => {
    const { threadId: id, branchId: branch } = where.current;
    if (id) void reload(id, branch);
  }, [reload, generation]);
  useEffect(() => {
    const search = locationFor(location.search, threadId, branchId);
    if (search !== location.search) {
      history.replaceState(history.state, "", `${location.pathname}${search}${location.hash}`);
    }
  }, [threadId, branchId]);
  const restart = useCallback(() => setGeneration((g) => g + 1), []);
  const toggleBreakpoint = useCallback((node: string, when: "before" | "after") => {
    setBreakpoints((b) => ({
      ...b,
      [when]: b[when].includes(node) ? b[when].filter((n) => n !== node) : [...b[when], node],
    }));
  }, []);
  const bp = useRef(breakpoints);
  bp.current = breakpoints;

  const selectThread = useCallback(
    async (id: string | null, branch = "main") => {
      setThreadId(id);
      setBranchId(branch);
      setSelectedEventId(null);
      setEventSnapshot(null);
      setLive(null);
      setFailure(null);
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
        fail(e);
      }
    },
    [api, fail],
  );

  const send = useCallback(
    async (
      body: Omit<RunRequest, "branchId" | "modes">,
    ): Promise<{ failure: string | null; refused: boolean }> => {
      if (running.current) return { failure: null, refused: false };
      running.current = true;
      setStatus("running…");
      setSelectedEventId(null);
      setEventSnapshot(null);
      setFailure(null);
      let id = where.current.threadId;
      const branch = where.current.branchId;
      const { before, after } = bp.current;
      let failed: string | null = null;
      let refused = false;
      try {
        if (!id) {
          id = await api.createThread();
          setThreadId(id);
        }
        let current = emptyRun();
        setLive(current);
        const outcome = await api.streamRun(
          id,
          {
            ...body,
            branchId: branch,
            modes: [...RUN_MODES],
            ...(before.length ? { interruptBefore: before } : {}),
            ...(after.length ? { interruptAfter: after } : {}),
          },
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
          failed = `${outcome.error.type}: ${outcome.error.message}`;
          if (outcome.error.type === "RunCancelledError") setStatus("run stopped");
          else setStatus(`run failed: ${failed}`, true);
        } else setStatus(`run ${outcome.end.status ?? "ended"}`);
      } catch (e) {
        setLive(null);
        // A 4xx of the run request (not 401: the key form asks again): refused before it ran.
        refused = e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 401;
        await reload(id, branch);
        failed = fail(e);
      } finally {
        running.current = false;
        setFailure(failed);
        await refreshThreads();
      }
      return { failure: failed, refused };
    },
    [api, reload, refreshThreads, setStatus, fail],
  );
  const run = useCallback(
    async (body: Omit<RunRequest, "branchId" | "modes">) => (await send(body)).failure,
    [send],
  );

  const liveRef = useRef(live);
  liveRef.current = live;
  const stop = useCallback(async () => {
    const id = where.current.threadId;
    const runId = liveRef.current?.runId;
    if (!id || !runId) return;
    try {
      setStatus("stopping…");
      await api.cancelRun(id, runId);
    } catch (e) {
      fail(e);
    }
  }, [api, setStatus, fail]);

  const updateState = useCallback(
    async (values: Record<string, Json>, asNode?: string | null): Promise<string | null> => {
      const { threadId: id, branchId: branch } = where.current;
      if (!id) return "no thread is shown";
      try {
        setSnapshot(await api.updateState(id, branch, values, asNode));
        setRevision((r) => r + 1);
        setStatus(`state updated: ${Object.keys(values).join(", ")}`);
        return null;
      } catch (e) {
        return fail(e);
      }
    },
    [api, setStatus, fail],
  );

  const fork = useCallback(
    async (eventId: string, values?: Record<string, Json> | null): Promise<string | null> => {
      const id = where.current.threadId;
      if (!id) return "no thread is shown";
      try {
        const branch = await api.fork(id, eventId);
        await selectThread(id, branch.branchId);
        if (values && Object.keys(values).length) {
          setSnapshot(await api.updateState(id, branch.branchId, values));
          setRevision((r) => r + 1);
        }
        setStatus(`forked branch ${branch.branchId} at ${eventId}`);
        await refreshThreads();
        return null;
      } catch (e) {
        return fail(e);
      }
    },
    [api, selectThread, refreshThreads, setStatus, fail],
  );

  return useMemo(
    () => ({
      api,
      graph,
      tools,
      failure,
      needsKey,
      breakpoints,
      toggleBreakpoint,
      restart,
      stop,
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
      send,
      fork,
      updateState,
      setStatus,
    }),
    [
      api,
      graph,
      tools,
      failure,
      needsKey,
      breakpoints,
      toggleBreakpoint,
      restart,
      stop,
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
      send,
      fork,
      updateState,
      setStatus,
    ],
  );
}
