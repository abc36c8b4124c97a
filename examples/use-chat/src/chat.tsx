// The chat: `useChat` of @ai-sdk/react over nodestep's UI message stream route. Runs start
// with `?onDisconnect=continue`, so a reload does not cancel them; `resume: true` rejoins one.
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { type FormEvent, useMemo, useState } from "react";

type Part = UIMessage["parts"][number];

export function Chat({
  threadId,
  initialMessages,
}: {
  threadId: string;
  initialMessages: UIMessage[];
}) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: `/api/threads/${encodeURIComponent(threadId)}/ui-stream`,
        // Only the URL changes; the body is useChat's own.
        prepareSendMessagesRequest: ({ api, id, messages, trigger, messageId, body }) => ({
          api: `${api}?onDisconnect=continue`,
          body: { ...body, id, messages, trigger, messageId },
        }),
      }),
    [threadId],
  );
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: threadId,
    messages: initialMessages,
    transport,
    resume: true,
    // Send the answers as soon as every asked tool call is approved or denied.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState("");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!input.trim()) return;
    void sendMessage({ text: input });
    setInput("");
  };

  const part = (p: Part, key: string) => {
    if (p.type === "text") {
      return (
        <p key={key} className="text">
          {p.text}
        </p>
      );
    }
    if (!isToolUIPart(p)) return null;
    return (
      <div key={key} className="tool-card" data-tool={getToolName(p)} data-state={p.state}>
        <strong>{getToolName(p)}</strong> <span className="tool-state">{p.state}</span>
        <pre className="tool-input">{JSON.stringify(p.input)}</pre>
        {p.state === "approval-requested" ? (
          <div className="approval">
            <span className="question">{p.approval.requestReason ?? "Run this tool?"}</span>{" "}
            <button
              type="button"
              onClick={() => addToolApprovalResponse({ id: p.approval.id, approved: true })}
            >
              Approve
            </button>{" "}
            <button
              type="button"
              onClick={() =>
                addToolApprovalResponse({ id: p.approval.id, approved: false, reason: "no" })
              }
            >
              Deny
            </button>
          </div>
        ) : null}
        {p.state === "output-available" ? (
          <pre className="tool-output">{JSON.stringify(p.output)}</pre>
        ) : null}
        {p.state === "output-error" ? <pre className="tool-error">{p.errorText}</pre> : null}
      </div>
    );
  };

  return (
    <main>
      <h1>Refunds</h1>
      <p className="status">
        thread <code>{threadId}</code> · <span data-testid="status">{status}</span>
      </p>
      {messages.map((m) => (
        <div key={m.id} className="message" data-role={m.role} data-id={m.id}>
          {m.parts.map((p, i) => part(p, `${m.id}-${i}`))}
        </div>
      ))}
      {error ? <p className="error">{error.message}</p> : null}
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Refund order A-1, please"
        />
        <button type="submit" disabled={status !== "ready"}>
          Send
        </button>
      </form>
    </main>
  );
}
