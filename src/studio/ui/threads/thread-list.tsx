/** The sidebar: the server's threads, most recent first, and "New thread". */
import type { ThreadInfo } from "../api.ts";

export interface ThreadListProps {
  threads: ThreadInfo[];
  selected: string | null;
  onSelect(threadId: string | null): void;
  onRefresh(): void;
}

export function ThreadList({ threads, selected, onSelect, onRefresh }: ThreadListProps) {
  return (
    <nav class="threads">
      <div class="threads-head">
        <button type="button" class="primary new-thread" onClick={() => onSelect(null)}>
          + New thread
        </button>
        <button type="button" class="refresh" title="Reload the list" onClick={onRefresh}>
          ↻
        </button>
      </div>
      <ul class="list">
        {threads.length === 0 ? <li class="muted">no threads yet</li> : null}
        {threads.map((t) => (
          <li
            key={t.threadId}
            data-thread-id={t.threadId}
            class={t.threadId === selected ? "selected" : ""}
            title={t.threadId}
          >
            <button type="button" class="row-button" onClick={() => onSelect(t.threadId)}>
              <div class="thread-id">{t.threadId}</div>
              <div class="muted">
                {new Date(t.updatedAt).toLocaleString()}
                {t.branches.length > 1 ? ` · ${t.branches.length} branches` : ""}
              </div>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
