/**
 * The State tab: the state shown (now, or after the chosen history event) as a tree, with its
 * actions: **Edit state** (now; through `updateState`), and at an event **Fork from this
 * event** or **Fork with edited state** (a new branch there, the edits written into it).
 */
import { useState } from "preact/hooks";
import { StateEditor } from "../actions/state-editor.tsx";
import type { StateSnapshot } from "../api.ts";
import type { Studio } from "../use-studio.ts";
import { StatePanel } from "./state-panel.tsx";

export function StateTab({ studio: s, shown }: { studio: Studio; shown: StateSnapshot | null }) {
  const [editing, setEditing] = useState<"edit" | "fork" | null>(null);
  const eventId = s.eventSnapshot ? s.selectedEventId : null;
  const running = s.live !== null;
  const key = `${s.threadId}/${s.branchId}/${eventId ?? "now"}/${shown?.lastEventId ?? ""}`;
  if (editing && shown) {
    return (
      <div class="state-panel">
        <div class="state-label">
          {editing === "fork" ? `Fork at ${eventId} with this state` : "Edit the state now"}
        </div>
        <StateEditor
          key={key}
          state={shown.state}
          action={editing === "fork" ? "Fork with this state" : "Save state"}
          onCancel={() => setEditing(null)}
          onSave={async (changed) => {
            const error =
              editing === "fork" && eventId
                ? await s.fork(eventId, changed)
                : await s.updateState(changed);
            if (error === null) setEditing(null);
            return error;
          }}
        />
      </div>
    );
  }
  return (
    <StatePanel snapshot={shown} eventId={eventId}>
      {shown ? (
        <div class="answer-row state-actions">
          {eventId ? (
            <>
              <button
                type="button"
                class="primary fork"
                disabled={running}
                onClick={() => void s.fork(eventId)}
              >
                Fork from this event
              </button>
              <button
                type="button"
                class="fork-edited"
                disabled={running}
                onClick={() => setEditing("fork")}
              >
                Fork with edited state…
              </button>
              <button type="button" class="back-to-now" onClick={() => void s.selectEvent(null)}>
                Back to now
              </button>
            </>
          ) : (
            <button
              type="button"
              class="edit-state"
              disabled={running}
              onClick={() => setEditing("edit")}
            >
              Edit state…
            </button>
          )}
        </div>
      ) : null}
    </StatePanel>
  );
}
