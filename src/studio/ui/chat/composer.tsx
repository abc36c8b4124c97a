/**
 * The message box under the chat: Enter sends, Shift+Enter starts a new line. Disabled while a
 * run goes on, and while an old state is shown. (A thread with work pending shows the paused
 * guard instead: actions/paused-guard.tsx.)
 */
import { useState } from "preact/hooks";

export interface ComposerProps {
  running: boolean;
  /** No sending (an old state is shown): the box says to go back to now. */
  disabled?: boolean;
  onSend(message: string): void;
}

export function Composer({ running, disabled = false, onSend }: ComposerProps) {
  const [text, setText] = useState("");
  const send = (ev: Event) => {
    ev.preventDefault();
    const message = text.trim();
    if (!message || running || disabled) return;
    setText("");
    onSend(message);
  };
  return (
    <form class="composer" onSubmit={send}>
      <textarea
        class="message"
        rows={2}
        placeholder={
          disabled
            ? "Showing an old state: go back to now to send a message"
            : "Message the agent (Enter sends, Shift+Enter a new line)"
        }
        value={text}
        disabled={running || disabled}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) send(e);
        }}
      />
      <button type="submit" class="primary send" disabled={running || disabled || !text.trim()}>
        {running ? "Running…" : "Send"}
      </button>
    </form>
  );
}
