/**
 * The conversation of the shown state: human messages on the right, the model's answers on
 * the left with their reasoning folded and their tool calls as cards; while a run streams, the
 * text the model is writing appears as it comes.
 */
import { useEffect, useRef } from "preact/hooks";
import type { Json } from "../api.ts";
import type { LiveRun } from "../live-run.ts";
import { ContentView } from "./content-view.tsx";
import { type ChatItem, chatItems } from "./messages.ts";
import { ReasoningView } from "./reasoning-view.tsx";
import { ToolCard } from "./tool-card.tsx";

export interface ChatViewProps {
  /** The messages of the shown state (`[]` for none). */
  messages: readonly Json[];
  /** The run going on, whose streamed text is shown after the messages. */
  live: LiveRun | null;
  /** The state shown has fields but no messages: say where to look instead. */
  noMessagesField?: boolean;
}

function Item({ item }: { item: ChatItem }) {
  if (item.kind === "ai") {
    return (
      <div class="msg ai" data-index={item.index}>
        <ReasoningView text={item.reasoning} />
        <ContentView content={item.content} />
        {item.refusal ? <div class="refusal">refused: {item.refusal}</div> : null}
        {item.toolCalls.length ? (
          <div class="tool-cards">
            {item.toolCalls.map((c) => (
              <ToolCard key={c.id} call={c} />
            ))}
          </div>
        ) : null}
      </div>
    );
  }
  return (
    <div class={`msg ${item.kind}`} data-index={item.index}>
      <ContentView content={item.content} />
    </div>
  );
}

export function ChatView({ messages, live, noMessagesField = false }: ChatViewProps) {
  const items = chatItems(messages);
  const streams = live ? Object.entries(live.tokens) : [];
  const end = useRef<HTMLDivElement>(null);
  const streamedLength = streams.reduce((n, [, s]) => n + s.text.length, 0);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: "end" });
  }, [items.length, streamedLength]);
  return (
    <div class="chat" data-testid="chat">
      {items.length === 0 && streams.length === 0 ? (
        <p class="muted empty">
          {noMessagesField
            ? "This graph's state has no messages: its fields are in the State tab."
            : "Send a message to start the conversation."}
        </p>
      ) : null}
      {items.map((item) => (
        <Item key={item.index} item={item} />
      ))}
      {streams.map(([key, s]) => (
        <div class="msg ai streaming" key={key} data-node={s.node ?? ""}>
          <ReasoningView text={s.reasoning} streaming />
          <div class="text">{s.text}</div>
          <span class="cursor">▍</span>
        </div>
      ))}
      <div ref={end} />
    </div>
  );
}
