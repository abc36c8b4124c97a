/**
 * The message box under the chat: Enter sends, Shift+Enter starts a new line. Text that is a
 * JSON object is sent as the run's `input` instead of a message. Disabled while a
 * run goes on, and while an old state is shown. (A thread with work pending shows the paused
 * guard instead: actions/paused-guard.tsx.)
 */
import { useState } from "preact/hooks";
import type { Json } from "../api.ts";

export interface ComposerProps {
  running: boolean;
  /** No sending (an old state is shown): the box says to go back to now. */
  disabled?: boolean;
  /** Send a message, or (text that is a JSON object) the run's input. */
  onSend(body: { message: string } | { input: Record<string, Json> }): void;
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
  const send = (ev: Event) => {
    ev.preventDefault();
    const message = text.trim();
    if (!message || running || disabled) return;
    setText("");
    onSend(inputOf(message) ?? { message });
  };
  return (
    <form class="composer" onSubmit={send}>
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
          if (e.key === "Enter" && !e.shiftKey) send(e);
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
    </form>
  );
}
