/**
 * The sidebar: the server's threads, most recent first, each titled by its first message
 * (`GET /api/thread-list`), a search over titles and ids, a delete per thread (asked twice),
 * and "New thread".
 */
import { useEffect, useState } from "preact/hooks";
import type { StudioApi, ThreadInfo, TitledThread } from "../api.ts";
import "./thread-list.css";

export interface ThreadListProps {
  threads: ThreadInfo[];
  selected: string | null;
  onSelect(threadId: string | null): void;
  onRefresh(): void;
  /** The API client: with it the list shows titles, searches and deletes. */
  api?: StudioApi;
}

export function ThreadList({ threads, selected, onSelect, onRefresh, api }: ThreadListProps) {
  const [query, setQuery] = useState("");
  const [titled, setTitled] = useState<TitledThread[] | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (!api) return;
    let on = true;
    const timer = setTimeout(
      () =>
        api.threadList(query.trim() || undefined).then(
          (t) => on && setTitled(t),
          (e: Error) => on && setProblem(e.message),
        ),
      query ? 150 : 0,
    );
    return () => {
      on = false;
      clearTimeout(timer);
    };
  }, [api, threads, query]);
  const shown: TitledThread[] =
    titled ?? threads.map((t) => ({ ...t, title: null as string | null }));
  const remove = async (threadId: string) => {
    if (!api) return;
    setConfirming(null);
    try {
      // Leave the thread first, so that nothing reads it while it goes.
      if (threadId === selected) onSelect(null);
      await api.deleteThread(threadId);
      onRefresh();
    } catch (e) {
      setProblem((e as Error).message);
    }
  };
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
      {api ? (
        <input
          class="thread-search"
          type="search"
          placeholder="Search threads"
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
      ) : null}
      {problem ? <p class="error thread-problem">{problem}</p> : null}
      <ul class="list">
        {shown.length === 0 ? (
          <li class="muted">{query ? "no thread matches" : "no threads yet"}</li>
        ) : null}
        {shown.map((t) => (
          <li
            key={t.threadId}
            data-thread-id={t.threadId}
            class={t.threadId === selected ? "selected" : ""}
            title={t.threadId}
          >
            <button type="button" class="row-button" onClick={() => onSelect(t.threadId)}>
              <div class="thread-title">{t.title ?? t.threadId}</div>
              <div class="muted">
                {t.title ? `${t.threadId} · ` : ""}
                {new Date(t.updatedAt).toLocaleString()}
                {t.branches.length > 1 ? ` · ${t.branches.length} branches` : ""}
              </div>
            </button>
            {api ? (
              confirming === t.threadId ? (
                <span class="delete-confirm">
                  <button
                    type="button"
                    class="danger delete-yes"
                    onClick={() => void remove(t.threadId)}
                  >
                    Delete
                  </button>
                  <button type="button" class="delete-no" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  class="delete-thread"
                  title={`Delete thread ${t.threadId}`}
                  onClick={() => setConfirming(t.threadId)}
                >
                  ✕
                </button>
              )
            ) : null}
          </li>
        ))}
      </ul>
    </nav>
  );
}
