/**
 * The studio's shell: a header (the graph's name, the branch, the status line), the thread
 * list on the left, the conversation in the middle (chat view, what the thread waits for,
 * the message box), and tabs on the right: Graph, History, State, Metrics. The Graph, History
 * and Metrics panels get the shell's {@link PanelProps}.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { type BranchNode, createApi } from "./api.ts";
import { API_KEY_STORAGE, ApiKeyForm } from "./api-key-form.tsx";
import { branchMenu } from "./branch-menu.ts";
import { Conversation } from "./chat/conversation.tsx";
import { GraphPanel } from "./graph/graph-panel.tsx";
import { HistoryPanel } from "./history/history-panel.tsx";
import { MetricsPanel } from "./metrics/metrics-panel.tsx";
import type { PanelProps } from "./panel-props.ts";
import { StateTab } from "./state/state-tab.tsx";
import { ThreadList } from "./threads/thread-list.tsx";
import { useStudio } from "./use-studio.ts";

const TABS = ["Graph", "History", "State", "Metrics"] as const;
type Tab = (typeof TABS)[number];

function apiKey(): string {
  try {
    return sessionStorage.getItem(API_KEY_STORAGE) ?? "";
  } catch {
    return "";
  }
}

export function App() {
  const api = useMemo(() => createApi(apiKey), []);
  const s = useStudio(api);
  const [tab, setTab] = useState<Tab>("Graph");
  const shown = s.eventSnapshot ?? s.snapshot;

  const panel: PanelProps = {
    api,
    graph: s.graph,
    threadId: s.threadId,
    branchId: s.branchId,
    revision: s.revision,
    snapshot: s.snapshot,
    live: s.live,
    selectedEventId: s.selectedEventId,
    onSelectEvent: (id) => void s.selectEvent(id),
    onSelectBranch: (b) => void s.selectBranch(b),
    breakpoints: s.breakpoints,
    onToggleBreakpoint: s.toggleBreakpoint,
  };
  // The menu lists the thread's fork trees (forks with no events of their own included).
  const [trees, setTrees] = useState<{ threadId: string; trees: BranchNode[] } | null>(null);
  // (Asked once the thread has events: a thread whose first run is starting has no branches yet.)
  const hasEvents = (s.snapshot?.lastEventId ?? null) !== null;
  useEffect(() => {
    const id = s.threadId;
    if (!id || !hasEvents) return;
    let on = true;
    api.branches(id).then(
      (b) => on && setTrees({ threadId: id, trees: b }),
      () => on && setTrees(null),
    );
    return () => {
      on = false;
    };
  }, [api, s.threadId, s.branchId, s.revision, hasEvents]);
  const branches = branchMenu(trees?.threadId === s.threadId ? trees.trees : [], s.branchId);

  return (
    <div class="studio">
      <header>
        <h1>
          nodestep studio <span class="graph-name">{s.graph?.name ?? ""}</span>
        </h1>
        <span class="thread-label" data-testid="thread-label">
          {s.threadId ? `thread ${s.threadId}` : "new thread"}
        </span>
        {s.threadId ? (
          <label class="branch">
            branch{" "}
            <select
              class="branch-select"
              value={s.branchId}
              onChange={(e) => void s.selectBranch((e.target as HTMLSelectElement).value)}
            >
              {branches.map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {s.needsKey ? <ApiKeyForm onKey={s.restart} /> : null}
        <output class={`status${s.status.error ? " error" : ""}`} data-testid="status">
          {s.status.text}
        </output>
      </header>
      <div class="layout">
        <ThreadList
          api={api}
          threads={s.threads}
          selected={s.threadId}
          onSelect={(id) => void s.selectThread(id)}
          onRefresh={() => void s.refreshThreads()}
        />
        <Conversation studio={s} onOpenTab={(t) => setTab(t as Tab)} />
        <aside class="panels">
          <div class="tabs" role="tablist">
            {TABS.map((t) => (
              <button
                type="button"
                role="tab"
                key={t}
                class={`tab${t === tab ? " active" : ""}`}
                data-tab={t}
                aria-selected={t === tab}
                onClick={() => setTab(t)}
              >
                {t}
              </button>
            ))}
          </div>
          <div class="panel" data-panel={tab}>
            {tab === "Graph" ? <GraphPanel {...panel} /> : null}
            {tab === "History" ? <HistoryPanel {...panel} /> : null}
            {tab === "State" ? <StateTab studio={s} shown={shown} /> : null}
            {tab === "Metrics" ? <MetricsPanel {...panel} /> : null}
          </div>
        </aside>
      </div>
    </div>
  );
}
