/**
 * The studio's shell: a header (the graph's name, the branch, the status line), the thread
 * list on the left, the conversation in the middle (chat view, what the thread waits for,
 * the message box), and tabs on the right: Graph, History, State, Metrics. The Graph, History
 * and Metrics panels get the shell's {@link PanelProps}.
 */
import { useMemo, useState } from "preact/hooks";
import { createApi, type Json } from "./api.ts";
import { ChatView } from "./chat/chat-view.tsx";
import { Composer } from "./chat/composer.tsx";
import { messagesField } from "./chat/messages.ts";
import { GraphPanel } from "./graph/graph-panel.tsx";
import { HistoryPanel } from "./history/history-panel.tsx";
import { MetricsPanel } from "./metrics/metrics-panel.tsx";
import type { PanelProps } from "./panel-props.ts";
import { StatePanel } from "./state/state-panel.tsx";
import { ThreadList } from "./threads/thread-list.tsx";
import { useStudio } from "./use-studio.ts";

const TABS = ["Graph", "History", "State", "Metrics"] as const;
type Tab = (typeof TABS)[number];

function apiKey(): string {
  try {
    return sessionStorage.getItem("nodestep.apiKey") ?? "";
  } catch {
    return "";
  }
}

export function App() {
  const api = useMemo(() => createApi(apiKey), []);
  const s = useStudio(api);
  const [tab, setTab] = useState<Tab>("Graph");
  const running = s.live !== null;

  const shown = s.eventSnapshot ?? s.snapshot;
  const field = messagesField(shown?.state ?? null);
  const stored = (field && (shown?.state[field] as Json[] | undefined)) || [];
  const messages = s.live && !s.eventSnapshot ? [...stored, ...s.live.messages] : stored;

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
  };
  const branches = s.threads.find((t) => t.threadId === s.threadId)?.branches ?? [s.branchId];

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
              {(branches.includes(s.branchId) ? branches : [...branches, s.branchId]).map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </label>
        ) : null}
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
        <main class="conversation">
          {s.eventSnapshot ? (
            <div class="time-travel">
              Showing the conversation after {s.selectedEventId}.{" "}
              <button type="button" class="back-to-now" onClick={() => void s.selectEvent(null)}>
                Back to now
              </button>
            </div>
          ) : null}
          <ChatView messages={messages} live={s.eventSnapshot ? null : s.live} />
          <Composer running={running} onSend={(message) => void s.run({ message })} />
        </main>
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
            {tab === "State" ? (
              <StatePanel snapshot={shown} eventId={s.eventSnapshot ? s.selectedEventId : null} />
            ) : null}
            {tab === "Metrics" ? <MetricsPanel {...panel} /> : null}
          </div>
        </aside>
      </div>
    </div>
  );
}
