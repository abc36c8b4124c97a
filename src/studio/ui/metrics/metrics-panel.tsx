/**
 * Run metrics: the model in use (and a choice of model for the next run when the server
 * offers several), the models that answered, then one row per run (status, latency, model / tool
 * calls, tokens in / out written compactly with the exact counts on hover, cost at the server's
 * prices) with the thread's totals; choosing a run
 * shows its nodes (the same columns) and its trace as a timeline. Read from `GET …/metrics`,
 * which derives it all from the stored events.
 */
import { useEffect, useState } from "preact/hooks";
import type { RunMetrics } from "../api.ts";
import type { PanelProps } from "../panel-props.ts";
import { compactTokens, ms, runLabel, tokens, usd } from "./format.ts";
import "./metrics.css";
import { ModelPicker } from "./model-picker.tsx";
import { TraceView } from "./trace-view.tsx";

/** Props of {@link MetricsPanel}: the shell's {@link PanelProps}. */
export type MetricsPanelProps = PanelProps;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The "model / tool" calls cell, the counts spelled out on hover. */
function Calls({ model, tool }: { model: number; tool: number }) {
  return (
    <td title={`${plural(model, "model call")}, ${plural(tool, "tool call")}`}>
      {model} / {tool}
    </td>
  );
}

/** The "in / out" tokens cell: compact, the exact counts on hover. */
function Tokens({ input, output }: { input: number; output: number }) {
  return (
    <td title={`${tokens(input)} tokens in, ${tokens(output)} tokens out`}>
      {compactTokens(input)} / {compactTokens(output)}
    </td>
  );
}

const STATUS_TITLE: Record<string, string> = {
  forked: "this branch forked off in the middle of the run: measured up to the fork point",
};

/** The header of both tables, after the first column (`run` or `node`) and the second. */
function Columns({ first, second }: { first: string; second: string }) {
  return (
    <tr>
      <th>{first}</th>
      <th>{second}</th>
      <th>latency</th>
      <th title="model calls / tool calls">calls</th>
      <th title="tokens in / tokens out">tokens</th>
      <th>cost</th>
    </tr>
  );
}

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
          <Columns first="run" second="status" />
        </thead>
        <tbody>
          {runs.map((r, i) => (
            <tr
              key={r.runId}
              data-run-id={r.runId}
              class={r === run ? "selected" : ""}
              onClick={() => setChosen(r.runId)}
            >
              <td>
                <button type="button" class="row-button run-button" title={r.runId}>
                  {runLabel(r.runId, i)}
                </button>
              </td>
              <td class={`status-${r.status}`} title={STATUS_TITLE[r.status]}>
                {r.status}
              </td>
              <td>{ms(r.latencyMs)}</td>
              <Calls model={r.modelCalls} tool={r.toolCalls} />
              <Tokens input={r.usage.inputTokens} output={r.usage.outputTokens} />
              <td>{usd(r.cost)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr class="total">
            <td>thread</td>
            <td>{plural(runs.length, "run")}</td>
            <td>{ms(total.latencyMs)}</td>
            <Calls model={total.modelCalls} tool={total.toolCalls} />
            <Tokens input={total.input} output={total.output} />
            <td>{usd(sumCost(runs))}</td>
          </tr>
        </tfoot>
      </table>
      {run ? (
        <section class="run-detail" data-run-id={run.runId}>
          <h3>
            Run {runLabel(run.runId, runs.indexOf(run))} by node{" "}
            <span class="muted">started {new Date(run.startedAt).toLocaleTimeString()}</span>
          </h3>
          <table class="metrics-table nodes">
            <thead>
              <Columns first="node" second="tasks" />
            </thead>
            <tbody>
              {run.nodes.map((n) => (
                <tr key={n.node} data-node={n.node}>
                  <td>{n.node}</td>
                  <td>{n.tasks}</td>
                  <td>{ms(n.latencyMs)}</td>
                  <Calls model={n.modelCalls} tool={n.toolCalls} />
                  <Tokens input={n.usage.inputTokens} output={n.usage.outputTokens} />
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
