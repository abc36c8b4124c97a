/**
 * What a paused thread waits for: one answer form per pending interrupt (an approval form for
 * `ApprovalMiddleware`'s requests, {@link InterruptForm} for any other). With one interrupt an
 * answer is sent at once; with several (parallel tool calls) each answer is kept until all are
 * given, then they go in one resume. A refused answer's message (`error`) shows here, above the
 * forms, which stay.
 */
import { useState } from "preact/hooks";
import type { InterruptInfo, Json, ToolView } from "../api.ts";
import { ApprovalForm, isApprovalRequest } from "./approval-form.tsx";
import { InterruptForm } from "./interrupt-form.tsx";

export interface InterruptPanelProps {
  interrupts: InterruptInfo[];
  tools: ToolView[];
  /** A run is going on (the answers were sent): the forms are disabled. */
  running: boolean;
  /** The last answer's error message, shown in place; `null` for none. */
  error: string | null;
  /** Send the answers by interrupt key. */
  onResume(answers: Record<string, Json>): void;
}

function describeAnswer(answer: Json): string {
  if (
    answer !== null &&
    typeof answer === "object" &&
    !Array.isArray(answer) &&
    "approved" in answer
  ) {
    if (answer.approved === true)
      return answer.arguments ? "approved with edited arguments" : "approved";
    return typeof answer.reason === "string" ? `denied: ${answer.reason}` : "denied";
  }
  return `answer: ${JSON.stringify(answer)}`;
}

export function InterruptPanel({
  interrupts,
  tools,
  running,
  error,
  onResume,
}: InterruptPanelProps) {
  const [answers, setAnswers] = useState<Record<string, Json>>({});
  const pending = interrupts.filter((i) => !(i.key in answers));
  const answer = (key: string, value: Json) => {
    const next = { ...answers, [key]: value };
    if (interrupts.every((i) => i.key in next)) {
      setAnswers({});
      onResume(Object.fromEntries(interrupts.map((i) => [i.key, next[i.key] as Json])));
    } else setAnswers(next);
  };
  return (
    <section class="interrupts" aria-label="Waiting for your answer">
      <h3>
        Waiting for your answer
        {interrupts.length > 1
          ? ` (${interrupts.length - pending.length} of ${interrupts.length} given)`
          : ""}
      </h3>
      {error ? (
        <div class="answer-error" role="alert">
          {error}
        </div>
      ) : null}
      {interrupts.map((it) => {
        const given = answers[it.key];
        return (
          <div class="interrupt" key={it.key} data-key={it.key}>
            <div class="muted">
              {it.node ? `node ${it.node} · ` : ""}key {it.key}
            </div>
            {given !== undefined ? (
              <div class="given">
                {describeAnswer(given)}{" "}
                <button
                  type="button"
                  class="change"
                  onClick={() => {
                    const { [it.key]: _gone, ...rest } = answers;
                    setAnswers(rest);
                  }}
                >
                  Change
                </button>
              </div>
            ) : isApprovalRequest(it.value) ? (
              <ApprovalForm
                request={it.value}
                schema={
                  tools.find((t) => t.name === (it.value as { tool: string }).tool)?.inputSchema ??
                  null
                }
                disabled={running}
                onAnswer={(a) => answer(it.key, a)}
              />
            ) : (
              <InterruptForm
                value={it.value}
                disabled={running}
                onAnswer={(a) => answer(it.key, a)}
              />
            )}
          </div>
        );
      })}
    </section>
  );
}
