// The page: one chat on one nodestep thread. The thread id is in the URL (`?thread=`), so a
// reload opens the same thread: the conversation comes back from GET …/ui-messages, and a run
// still going on is rejoined (useChat `resume: true` → GET …/ui-stream/:chatId/stream).
import type { UIMessage } from "ai";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Chat } from "./chat.js";

function threadIdOfPage(): string {
  const url = new URL(window.location.href);
  let id = url.searchParams.get("thread");
  if (!id) {
    id = `chat-${crypto.randomUUID().slice(0, 8)}`;
    url.searchParams.set("thread", id);
    window.history.replaceState(null, "", url);
  }
  return id;
}

async function history(threadId: string): Promise<UIMessage[]> {
  const res = await fetch(`/api/threads/${encodeURIComponent(threadId)}/ui-messages`);
  if (res.status === 404) return []; // a new thread
  if (!res.ok) throw new Error(`GET ui-messages: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

const threadId = threadIdOfPage();
const root = createRoot(document.getElementById("root") as HTMLElement);
history(threadId).then(
  (messages) =>
    root.render(
      <StrictMode>
        <Chat threadId={threadId} initialMessages={messages} />
      </StrictMode>,
    ),
  (error: unknown) => root.render(<p className="error">{String(error)}</p>),
);
