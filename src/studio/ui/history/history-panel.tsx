/**
 * PLACEHOLDER (studio-data replaces this file, keeping its export and props): the thread's
 * history. Each row carries `data-event-id` and chooses its event on click
 * (`onSelectEvent(id)`); the chosen row has the class `selected`; "Back to now" calls
 * `onSelectEvent(null)`. The browser tests of the chat and actions rely on these three.
 */
import { useEffect, useState } from "preact/hooks";
import type { HistoryEvent } from "../api.ts";
import type { PanelProps } from "../panel-props.ts";

/** Props of {@link HistoryPanel}: the shell's {@link PanelProps}. */
export type HistoryPanelProps = PanelProps;

export function HistoryPanel(props: HistoryPanelProps) {
  const { api, threadId, branchId, revision, selectedEventId, onSelectEvent } = props;
  const [events, setEvents] = useState<HistoryEvent[]>([]);
  useEffect(() => {
    if (!threadId) {
      setEvents([]);
      return;
    }
    let live = true;
    api.history(threadId, branchId).then(
      (e) => live && setEvents(e),
      () => live && setEvents([]),
    );
    return () => {
      live = false;
    };
  }, [api, threadId, branchId, revision]);
  if (!threadId) return <p class="muted">no thread yet</p>;
  return (
    <div class="history">
      <button
        type="button"
        class="back-to-now"
        disabled={!selectedEventId}
        onClick={() => onSelectEvent(null)}
      >
        Back to now
      </button>
      <ol class="list">
        {events.map((e) => (
          <li key={e.id} data-event-id={e.id} class={e.id === selectedEventId ? "selected" : ""}>
            <button type="button" class="row-button" onClick={() => onSelectEvent(e.id)}>
              <span class="tag">{e.type}</span> {e.node ?? ""} <span class="muted">{e.id}</span>
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}
