/** A tool call as a card: the tool's name, its arguments as a table, and its result (or "running…"). */

import type { Json } from "../api.ts";
import { JsonTree } from "../state/json-tree.tsx";
import { ContentView } from "./content-view.tsx";
import type { Part, ToolCallView } from "./messages.ts";

/** How a call ended, as its badge says: waiting (no result yet), denied (by a person), error, done. */
function outcome(call: ToolCallView): "waiting" | "denied" | "error" | "done" {
  const content = call.result?.content;
  if (call.result === null) return "waiting";
  if (typeof content === "string" && content.startsWith("Tool call denied")) return "denied";
  if (typeof content === "string" && content.startsWith("Tool error:")) return "error";
  return "done";
}

/** A tool's result: JSON text (how tools' values are sent to the model) as a tree, else as content. */
function ResultView({ content }: { content: string | Part[] | null }) {
  if (typeof content === "string") {
    const t = content.trim();
    if (t.startsWith("{") || t.startsWith("[")) {
      try {
        let value = JSON.parse(t) as Json;
        // A value that is not an object is sent as { result: value }.
        if (value !== null && typeof value === "object" && !Array.isArray(value)) {
          const keys = Object.keys(value);
          if (keys.length === 1 && keys[0] === "result") value = value.result ?? null;
        }
        if (typeof value === "string") return <div class="text">{value}</div>;
        return <JsonTree value={value} open={2} />;
      } catch {
        // not JSON: shown as text
      }
    }
  }
  return <ContentView content={content} />;
}

export function ToolCard({ call }: { call: ToolCallView }) {
  const edited = call.result?.arguments ?? null;
  return (
    <div class="tool-card" data-tool-call-id={call.id} data-tool={call.name}>
      <div class="tool-head">
        <span class="tool-kind">tool</span> <span class="tool-name">{call.name}</span>
        <span class={`tool-status ${outcome(call)}`}>{outcome(call)}</span>
      </div>
      <div class="tool-args">
        <div class="label">arguments</div>
        {call.argumentsError ? (
          <div class="error">{call.argumentsError}</div>
        ) : (
          <JsonTree value={call.arguments} open={2} />
        )}
        {edited !== null ? (
          <>
            <div class="label">ran with (changed by an approval)</div>
            <JsonTree value={edited} open={2} />
          </>
        ) : null}
      </div>
      {call.result ? (
        <div class="tool-result">
          <div class="label">result</div>
          <ResultView content={call.result.content} />
        </div>
      ) : null}
    </div>
  );
}
