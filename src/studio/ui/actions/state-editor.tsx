/**
 * Edit a state: every field as a form input (built from the value's shape; lists and objects
 * as JSON boxes). **Save** sends only the fields changed (through `updateState`, so the
 * reducers apply them as if a node had returned them); an error (a field the graph refuses)
 * shows here and the form stays.
 */
import { useState } from "preact/hooks";
import type { Json } from "../api.ts";
import { SchemaForm } from "./schema-form.tsx";
import { useFieldErrors } from "./use-field-errors.ts";

export interface StateEditorProps {
  state: Record<string, Json>;
  /** The save button's text ("Save state", "Fork with this state"). */
  action: string;
  /** Save the changed fields; resolves to an error message, or `null` when done. */
  onSave(changed: Record<string, Json>): Promise<string | null>;
  onCancel(): void;
}

export function StateEditor({ state, action, onSave, onCancel }: StateEditorProps) {
  const [value, setValue] = useState<Json>(state);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = useFieldErrors();
  const edited = value as Record<string, Json>;
  const changed = Object.fromEntries(
    Object.entries(edited).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(state[k])),
  );
  const save = async () => {
    setBusy(true);
    const e = await onSave(changed);
    setBusy(false);
    setError(e);
  };
  return (
    <div class="state-editor">
      <SchemaForm schema={null} value={value} onChange={setValue} onError={fields.onError} />
      {fields.error ? <div class="field-error">{fields.error}</div> : null}
      {error ? (
        <div class="answer-error" role="alert">
          {error}
        </div>
      ) : null}
      <div class="answer-row">
        <button
          type="button"
          class="primary save-state"
          disabled={
            busy ||
            fields.error !== null ||
            (Object.keys(changed).length === 0 && action === "Save state")
          }
          onClick={() => void save()}
        >
          {action}
        </button>
        <button type="button" class="cancel" onClick={onCancel}>
          Cancel
        </button>
        <span class="muted">
          {Object.keys(changed).length
            ? `changed: ${Object.keys(changed).join(", ")}`
            : "nothing changed"}
        </span>
      </div>
    </div>
  );
}
