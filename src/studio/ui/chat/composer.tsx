/**
 * The message box under the chat. Disabled while a run goes on; when the thread is paused
 * (waiting on interrupts or at a breakpoint) a new message would break the paused turn, so the
 * box is replaced by `paused` (the shell passes the resume and fork choices).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

export interface ComposerProps {
  running: boolean;
  /** Set when the thread is paused: shown instead of the message box. */
  paused?: ComponentChildren;
  onSend(message: string): void;
}

export function Composer({ running, paused, onSend }: ComposerProps) {
  const [text, setText] = useState("");
  if (paused) return <div class="composer paused">{paused}</div>;
  const send = (ev: Event) => {
    ev.preventDefault();
    const message = text.trim();
    if (!message || running) return;
    setText("");
    onSend(message);
  };
  return (
    <form class="composer" onSubmit={send}>
      <textarea
        class="message"
        rows={2}
        placeholder="Message the agent (Enter sends, Shift+Enter a new line)"
        value={text}
        disabled={running}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) send(e);
        }}
      />
      <button type="submit" class="primary send" disabled={running || !text.trim()}>
        {running ? "Running…" : "Send"}
      </button>
    </form>
  );
}
