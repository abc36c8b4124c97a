/** The model's reasoning, folded: a summary line that opens to the text. */
export function ReasoningView({ text, streaming = false }: { text: string; streaming?: boolean }) {
  if (!text) return null;
  return (
    <details class="reasoning">
      <summary>{streaming ? "thinking…" : "reasoning"}</summary>
      <div class="text">{text}</div>
    </details>
  );
}
