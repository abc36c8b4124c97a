/**
 * The thread's history, readable: one row per event with its step, its nodes and a one-line
 * summary (what the model said, which tools ran, what was asked and answered); choosing a row
 * (`data-event-id`, class `selected`) shows the state there (the shell's time travel) and the
 * change the event made; "Back to now" returns; "Fork here" makes a named branch after the
 * chosen event; the branches are listed as a tree of forks.
 */
import { useEffect, useState } from "preact/hooks";
import type { BranchNode, HistoryEntry } from "../api.ts";
import type { PanelProps } from "../panel-props.ts";
import { DiffView } from "./diff-view.tsx";
import { ForkTree } from "./fork-tree.tsx";
import "./history.css";

/** Props of {@link HistoryPanel}: the shell's {@link PanelProps}. */
export type HistoryPanelProps = PanelProps;

const TYPE_LABELS: Record<string, string> = {
  run_started: "run",
  step_committed: "step",
  task_finished: "task",
  task_interrupted: "asks",
  task_cache: "kept",
  run_finished: "end",
  run_failed: "failed",
  state_updated: "edit",
  rolled_back: "rollback",
};

export function HistoryPanel(props: HistoryPanelProps) {
  const { api, threadId, branchId, revision, selectedEventId, onSelectEvent, onSelectBranch } =
    props;
  const hasEvents = (props.snapshot?.lastEventId ?? null) !== null;
  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [branches, setBranches] = useState<BranchNode[]>([]);
  const [forkName, setForkName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    // A thread with no events yet (just created) has nothing to read.
    if (!threadId || !hasEvents) {
      setEntries([]);
      setBranches([]);
      return;
    }
    let on = true;
    api.historyView(threadId, branchId).then(
      (e) => on && setEntries(e),
      (e: Error) => {
        if (!on) return;
        setEntries([]);
        setProblem(e.message);
      },
    );
    api.branches(threadId).then(
      (b) => on && setBranches(b),
      () => on && setBranches([]),
    );
    return () => {
      on = false;
    };
  }, [api, threadId, branchId, revision, hasEvents]);
  if (!threadId) return <p class="muted">no thread yet</p>;

  const fork = async (eventId: string) => {
    setProblem(null);
    try {
      const made = await api.fork(threadId, eventId, forkName.trim() || undefined);
      setForkName("");
      onSelectEvent(null);
      onSelectBranch(made.branchId);
    } catch (e) {
      setProblem((e as Error).message);
    }
  };

  return (
    <div class="history">
      <div class="history-tools">
        <button
          type="button"
          class="back-to-now"
          disabled={!selectedEventId}
          onClick={() => onSelectEvent(null)}
        >
          Back to now
        </button>
        <span class="muted">
          {entries.length} events on {branchId}
          {selectedEventId ? ` · showing the state after ${selectedEventId}` : ""}
        </span>
      </div>
      {problem ? <p class="error history-problem">{problem}</p> : null}
      <ForkTree branches={branches} current={branchId} onSelectBranch={onSelectBranch} />
      <ol class="list history-rows">
        {entries.map((e) => {
          const selected = e.id === selectedEventId;
          return (
            <li
              key={e.id}
              data-event-id={e.id}
              class={`history-row type-${e.type}${selected ? " selected" : ""}`}
            >
              <button
                type="button"
                class="row-button"
                title={`${e.type} · ${e.id}`}
                onClick={() => onSelectEvent(selected ? null : e.id)}
              >
                <span class="seq">#{e.seq}</span>
                <span class="tag">{TYPE_LABELS[e.type] ?? e.type}</span>
                {e.nodes.length ? <span class="nodes">{e.nodes.join(", ")}</span> : null}
                <span class="summary">{e.summary}</span>
                {e.diff.length ? <span class="changes muted">{e.diff.length}Δ</span> : null}
              </button>
              {selected ? (
                <div class="entry-detail">
                  <DiffView diff={e.diff} truncated={e.diffTruncated} />
                  <div class="fork-here">
                    <input
                      class="fork-name"
                      placeholder="branch name (optional)"
                      value={forkName}
                      onInput={(ev) => setForkName((ev.target as HTMLInputElement).value)}
                    />
                    <button type="button" class="fork-button" onClick={() => void fork(e.id)}>
                      Fork here
                    </button>
                  </div>
                </div>
              ) : null}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
