/**
 * PLACEHOLDER (studio-data replaces this file, keeping its export and props): run metrics
 * (latency, model calls, tokens, cost per run and node; the trace).
 */
import type { PanelProps } from "../panel-props.ts";

/** Props of {@link MetricsPanel}: the shell's {@link PanelProps}. */
export type MetricsPanelProps = PanelProps;

export function MetricsPanel({ threadId }: MetricsPanelProps) {
  return (
    <p class="muted">{threadId ? "metrics of this thread: not built yet" : "no thread yet"}</p>
  );
}
