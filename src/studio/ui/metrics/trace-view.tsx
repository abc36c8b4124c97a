/** A run's trace as a timeline: one row per span (run, nodes, their model and tool calls), bars on a shared time axis. */
import type { TraceSpan } from "../api.ts";
import { ms, spanName } from "./format.ts";

export function TraceView({ spans }: { spans: TraceSpan[] }) {
  const total = Math.max(1, ...spans.map((s) => s.endMs));
  return (
    <div class="trace">
      {spans.map((s) => {
        const left = (s.startMs / total) * 100;
        const width = Math.max(0.8, ((s.endMs - s.startMs) / total) * 100);
        return (
          <div
            key={s.id}
            class={`span kind-${s.kind} status-${s.status}`}
            data-span={s.id}
            title={`${s.kind} ${s.name}: ${s.startMs}–${s.endMs} ms${s.detail ? ` · ${s.detail}` : ""}`}
          >
            <div class="span-name">
              <span class="span-kind">{s.kind}</span> {spanName(s)}
            </div>
            <div class="span-track">
              <div class="span-bar" style={{ left: `${left}%`, width: `${width}%` }} />
            </div>
            <div class="span-time muted">{ms(s.endMs - s.startMs)}</div>
            <div class="span-detail muted">{s.detail}</div>
          </div>
        );
      })}
    </div>
  );
}
