/** A tool call as a card: the tool's name, its arguments as a table, and its result (or "running…"). */
import { JsonTree } from "../state/json-tree.tsx";
import { ContentView } from "./content-view.tsx";
import type { ToolCallView } from "./messages.ts";

export function ToolCard({ call }: { call: ToolCallView }) {
  const edited = call.result?.arguments ?? null;
  return (
    <div class="tool-card" data-tool-call-id={call.id} data-tool={call.name}>
      <div class="tool-head">
        <span class="tool-icon">🛠</span> <span class="tool-name">{call.name}</span>
        <span class={`tool-status ${call.result ? "done" : "waiting"}`}>
          {call.result ? "done" : "waiting"}
        </span>
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
          <ContentView content={call.result.content} />
        </div>
      ) : null}
    </div>
  );
}
