/**
 * The message box under the chat: Enter sends, Shift+Enter starts a new line. Text that is a
 * JSON object is sent as the run's `input` instead of a message. Disabled while a
 * run goes on, and while an old state is shown. When the server refuses the run (a 4xx: the
 * input does not fit the state), the text typed comes back into the box and the server's
 * message shows under it. (A thread with work pending shows the paused
 * guard instead: actions/paused-guard.tsx.)
 */
import { useState } from "preact/hooks";
import type { Json } from "../api.ts";

export interface ComposerProps {
  running: boolean;
  /** No sending (an old state is shown): the box says to go back to now. */
  disabled?: boolean;
  /**
   * Send a message, or (text that is a JSON object) the run's input. Resolves to why the
   * server refused it (`Type: message`), or `null` when the run went ahead.
   */
  onSend(body: { message: string } | { input: Record<string, Json> }): Promise<string | null>;
  /** Stop the run going on (shown while running). */
  onStop?(): void;
}

/** Text that is a JSON object: the run's input (for graphs that take other fields than messages). */
function inputOf(text: string): { input: Record<string, Json> } | null {
  if (!text.startsWith("{")) return null;
  try {
    const value = JSON.parse(text) as Json;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? { input: value }
      : null;
  } catch {
    return null;
  }
}

export function Composer({ running, disabled = false, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState("");
  const [refused, setRefused] = useState<string | null>(null);
  const send = async (ev: Event) => {
    ev.preventDefault();
    const message = text.trim();
    if (!message || running || disabled) return;
    setText("");
    setRefused(null);
    const why = await onSend(inputOf(message) ?? { message });
    if (why !== null) {
      // Refused before it ran: give the text back to fix (unless something new was typed).
      setText((now) => (now === "" ? text : now));
      setRefused(why);
    }
  };
  return (
    <form class="composer" onSubmit={(e) => void send(e)}>
      <textarea
        class="message"
        rows={2}
        placeholder={
          disabled
            ? "Showing an old state: go back to now to send a message"
            : "Message the agent, or a JSON object as the run's input (Enter sends, Shift+Enter a new line)"
        }
        value={text}
        disabled={running || disabled}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) void send(e);
        }}
      />
      {running && onStop ? (
        <button type="button" class="danger stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" class="primary send" disabled={running || disabled || !text.trim()}>
          Send
        </button>
      )}
      {refused ? (
        <p class="composer-error error" role="alert" data-testid="composer-error">
          {refused}
        </p>
      ) : null}
    </form>
  );
}
