/**
 * The middle column: the conversation of the state shown, what the thread waits for (answer
 * forms), and the message box; while the thread has work pending, a guard in place of the
 * message box (answer, continue, or fork instead); and the breakpoints for the next runs.
 */
import { useEffect, useState } from "preact/hooks";
import { BreakpointsEditor } from "../actions/breakpoints.tsx";
import { InterruptPanel } from "../actions/interrupt-panel.tsx";
import { PausedGuard } from "../actions/paused-guard.tsx";
import type { Json } from "../api.ts";
import type { Studio } from "../use-studio.ts";
import { ChatView } from "./chat-view.tsx";
import { Composer } from "./composer.tsx";
import { messagesField } from "./messages.ts";

export interface ConversationProps {
  studio: Studio;
  /** Open a tab of the side panel ("History" to choose an event to fork from). */
  onOpenTab(tab: string): void;
}

export function Conversation({ studio: s, onOpenTab }: ConversationProps) {
  const [answerError, setAnswerError] = useState<string | null>(null);
  const running = s.live !== null;
  const shown = s.eventSnapshot ?? s.snapshot;
  const field = messagesField(shown?.state ?? null);
  const stored = (field && (shown?.state[field] as Json[] | undefined)) || [];
  const messages = s.live && !s.eventSnapshot ? [...stored, ...s.live.messages] : stored;
  const now = s.snapshot;
  const pending = !s.eventSnapshot && now !== null && now.next.length > 0;
  // A new thread or branch: no old answer error.
  useEffect(() => setAnswerError(null), [s.threadId, s.branchId]);

  return (
    <main class="conversation">
      {s.eventSnapshot ? (
        <div class="time-travel">
          Showing the conversation after {s.selectedEventId}.{" "}
          <button type="button" class="back-to-now" onClick={() => void s.selectEvent(null)}>
            Back to now
          </button>
        </div>
      ) : null}
      <ChatView
        messages={messages}
        live={s.eventSnapshot ? null : s.live}
        noMessagesField={shown !== null && field === null && Object.keys(shown.state).length > 0}
      />
      {pending && now.interrupts.length > 0 ? (
        <InterruptPanel
          key={`${s.threadId}/${s.branchId}/${now.lastEventId}`}
          interrupts={now.interrupts}
          tools={s.tools}
          running={running}
          error={answerError}
          onResume={async (resume) => setAnswerError(await s.run({ resume }))}
        />
      ) : null}
      {pending && !running ? (
        <PausedGuard
          snapshot={now}
          failure={s.failure}
          running={running}
          onContinue={() => void s.run({})}
          onFork={() => onOpenTab("History")}
        />
      ) : (
        <Composer
          running={running}
          disabled={s.eventSnapshot !== null}
          onSend={async (body) => {
            const outcome = await s.send(body);
            return outcome.refused ? outcome.failure : null;
          }}
          onStop={() => void s.stop()}
        />
      )}
      {s.graph ? (
        <BreakpointsEditor
          nodes={s.graph.nodes}
          breakpoints={s.breakpoints}
          onToggle={s.toggleBreakpoint}
        />
      ) : null}
    </main>
  );
}
