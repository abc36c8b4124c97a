/**
 * Run metrics: the model in use (and a choice of model for the next run when the server
 * offers several), the models that answered, then one row per run (status, latency, model and tool
 * calls, tokens in / out, cost at the server's prices) with the thread's totals; choosing a run
 * shows its nodes (the same columns) and its trace as a timeline. Read from `GET …/metrics`,
 * which derives it all from the stored events.
 */
import { useEffect, useState } from "preact/hooks";
import type { RunMetrics } from "../api.ts";
import type { PanelProps } from "../panel-props.ts";
import { ms, tokens, usd } from "./format.ts";
import "./metrics.css";
import { ModelPicker } from "./model-picker.tsx";
import { TraceView } from "./trace-view.tsx";

/** Props of {@link MetricsPanel}: the shell's {@link PanelProps}. */
export type MetricsPanelProps = PanelProps;

const shortRun = (runId: string) => runId.replace(/^run-/, "");

function sumCost(runs: RunMetrics[]) {
  if (runs.some((r) => r.cost === null)) return null;
  const unpriced = [...new Set(runs.flatMap((r) => r.cost!.unpriced))];
  const usdTotal = Math.round(runs.reduce((s, r) => s + r.cost!.usd, 0) * 1e9) / 1e9;
  return { usd: usdTotal, byModel: {}, unpriced };
}

export function MetricsPanel(props: MetricsPanelProps) {
  const { api, threadId, branchId, revision } = props;
  const hasEvents = (props.snapshot?.lastEventId ?? null) !== null;
  const [runs, setRuns] = useState<RunMetrics[]>([]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    // A thread with no events yet (just created) has nothing to read.
    if (!threadId || !hasEvents) {
      setRuns([]);
      return;
    }
    let on = true;
    api.metrics(threadId, branchId).then(
      (r) => {
        if (!on) return;
        setRuns(r);
        setProblem(null);
      },
      (e: Error) => {
        if (!on) return;
        setRuns([]);
        setProblem(e.message);
      },
    );
    return () => {
      on = false;
    };
  }, [api, threadId, branchId, revision, hasEvents]);
  if (!threadId)
    return (
      <div class="metrics">
        <ModelPicker api={api} />
        <p class="muted">no thread yet</p>
      </div>
    );
  if (problem) return <p class="error">{problem}</p>;
  const run = runs.find((r) => r.runId === chosen) ?? runs.at(-1) ?? null;
  const models = [...new Set(runs.flatMap((r) => Object.keys(r.byModel)))];
  const total = {
    latencyMs: runs.reduce((s, r) => s + r.latencyMs, 0),
    modelCalls: runs.reduce((s, r) => s + r.modelCalls, 0),
    toolCalls: runs.reduce((s, r) => s + r.toolCalls, 0),
    input: runs.reduce((s, r) => s + r.usage.inputTokens, 0),
    output: runs.reduce((s, r) => s + r.usage.outputTokens, 0),
  };
  return (
    <div class="metrics">
      <ModelPicker api={api} />
      <p class="models" data-testid="models-used">
        {models.length
          ? `models that answered: ${models.join(", ")}`
          : "models that answered: none reported usage"}
      </p>
      <table class="metrics-table runs">
        <thead>
          <tr>
            <th>run</th>
            <th>status</th>
            <th>latency</th>
            <th>model calls</th>
            <th>tool calls</th>
            <th>tokens in</th>
            <th>tokens out</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr
              key={r.runId}
              data-run-id={r.runId}
              class={r === run ? "selected" : ""}
              onClick={() => setChosen(r.runId)}
            >
              <td>
                <button type="button" class="row-button run-button">
                  {shortRun(r.runId)}
                </button>
              </td>
              <td class={`status-${r.status}`}>{r.status}</td>
              <td>{ms(r.latencyMs)}</td>
              <td>{r.modelCalls}</td>
              <td>{r.toolCalls}</td>
              <td>{tokens(r.usage.inputTokens)}</td>
              <td>{tokens(r.usage.outputTokens)}</td>
              <td>{usd(r.cost)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr class="total">
            <td>thread</td>
            <td>{runs.length} runs</td>
            <td>{ms(total.latencyMs)}</td>
            <td>{total.modelCalls}</td>
            <td>{total.toolCalls}</td>
            <td>{tokens(total.input)}</td>
            <td>{tokens(total.output)}</td>
            <td>{usd(sumCost(runs))}</td>
          </tr>
        </tfoot>
      </table>
      {run ? (
        <section class="run-detail" data-run-id={run.runId}>
          <h3>
            Run {shortRun(run.runId)} by node{" "}
            <span class="muted">started {new Date(run.startedAt).toLocaleTimeString()}</span>
          </h3>
          <table class="metrics-table nodes">
            <thead>
              <tr>
                <th>node</th>
                <th>tasks</th>
                <th>latency</th>
                <th>model calls</th>
                <th>tool calls</th>
                <th>tokens in</th>
                <th>tokens out</th>
                <th>cost</th>
              </tr>
            </thead>
            <tbody>
              {run.nodes.map((n) => (
                <tr key={n.node} data-node={n.node}>
                  <td>{n.node}</td>
                  <td>{n.tasks}</td>
                  <td>{ms(n.latencyMs)}</td>
                  <td>{n.modelCalls}</td>
                  <td>{n.toolCalls}</td>
                  <td>{tokens(n.usage.inputTokens)}</td>
                  <td>{tokens(n.usage.outputTokens)}</td>
                  <td>{usd(n.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Trace</h3>
          <TraceView spans={run.spans} />
        </section>
      ) : (
        <p class="muted">no runs yet</p>
      )}
    </div>
  );
}
