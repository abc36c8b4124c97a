/** Asks for the server's API key after a 401, and keeps it for the tab (`sessionStorage`). */
import { useState } from "preact/hooks";

export const API_KEY_STORAGE = "nodestep.apiKey";

export function ApiKeyForm({ onKey }: { onKey(): void }) {
  const [key, setKey] = useState("");
  return (
    <form
      class="key-form"
      onSubmit={(e) => {
        e.preventDefault();
        try {
          sessionStorage.setItem(API_KEY_STORAGE, key);
        } catch {
          // private mode: nothing is kept
        }
        onKey();
      }}
    >
      <label>
        This server needs an API key{" "}
        <input
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Use key</button>
    </form>
  );
}
