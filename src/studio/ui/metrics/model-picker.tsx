/**
 * The model in use and, when the server offers several (`nodestep serve --models`), a choice
 * of the model the next runs use (`model` in their run body).
 */
import { useEffect, useState } from "preact/hooks";
import type { StudioApi } from "../api.ts";

export function ModelPicker({ api }: { api: StudioApi }) {
  const [models, setModels] = useState<{ current: string | null; choices: string[] } | null>(null);
  const [chosen, setChosen] = useState<string | null>(api.runModel());
  useEffect(() => {
    let on = true;
    api.models().then(
      (m) => on && setModels(m),
      () => on && setModels({ current: null, choices: [] }),
    );
    return () => {
      on = false;
    };
  }, [api]);
  if (models === null) return null;
  const inUse = chosen ?? models.current;
  if (models.choices.length < 2) {
    return (
      <p class="model-picker" data-testid="model-in-use">
        model: {inUse ?? "the graph's own (the server was not given one)"}
      </p>
    );
  }
  return (
    <label class="model-picker" data-testid="model-in-use">
      model for the next run:{" "}
      <select
        class="model-select"
        value={inUse ?? ""}
        onChange={(e) => {
          const value = (e.target as HTMLSelectElement).value;
          const next = value === models.current ? null : value;
          api.setRunModel(next);
          setChosen(next);
        }}
      >
        {models.choices.map((m) => (
          <option key={m} value={m}>
            {m}
            {m === models.current ? " (default)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
}
