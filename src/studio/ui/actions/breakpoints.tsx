/**
 * Breakpoints for the next runs: per node, pause **before** it runs or **after** it ran
 * (`interruptBefore` / `interruptAfter` of the run; LangGraph's names). A run that stops at
 * one shows **Continue**.
 */
import type { Breakpoints } from "../panel-props.ts";

export interface BreakpointsProps {
  nodes: string[];
  breakpoints: Breakpoints;
  onToggle(node: string, when: "before" | "after"): void;
}

export function BreakpointsEditor({ nodes, breakpoints, onToggle }: BreakpointsProps) {
  const count = breakpoints.before.length + breakpoints.after.length;
  return (
    <details class="breakpoints">
      <summary>Breakpoints{count ? ` (${count})` : ""}</summary>
      <table>
        <thead>
          <tr>
            <th>node</th>
            <th>before</th>
            <th>after</th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n} data-node={n}>
              <td>{n}</td>
              {(["before", "after"] as const).map((when) => (
                <td key={when}>
                  <input
                    type="checkbox"
                    name={`${when}-${n}`}
                    aria-label={`pause ${when} ${n}`}
                    checked={breakpoints[when].includes(n)}
                    onChange={() => onToggle(n, when)}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
