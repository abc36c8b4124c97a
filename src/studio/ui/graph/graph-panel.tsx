/**
 * The graph view: the graph laid out by dagre (layout.ts) and drawn as SVG at a fixed font
 * size, with the condition's name on each conditional edge, joins drawn thick, breakpoints
 * marked (⏸ before / after), the nodes running now highlighted (`live.running`, from the run's
 * `tasks` events), the nodes next dashed, and the path the latest run took — or the run of
 * the chosen history event, up to it — drawn over the edges. The drawing scrolls; − / + zoom.
 * The graph is read again whenever the thread changes (a server started with `--watch` may
 * have loaded a new one).
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { GraphView, HistoryEntry } from "../api.ts";
import type { PanelProps } from "../panel-props.ts";
import "./graph.css";
import { EDGE_FONT_PX, FONT_PX, type LaidOutEdge, layoutGraph } from "./layout.ts";
import { legendItems } from "./legend.ts";
import { currentRunEntries, edgeKey, runPath } from "./run-path.ts";

/** Props of {@link GraphPanel}: the shell's {@link PanelProps}. */
export type GraphPanelProps = PanelProps;

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5];

/** An SVG path through the points, with rounded corners. */
function pathOf(points: { x: number; y: number }[]): string {
  if (points.length === 0) return "";
  const [first, ...rest] = points;
  if (rest.length === 0) return `M${first!.x},${first!.y}`;
  let d = `M${first!.x},${first!.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const n = rest[i + 1]!;
    d += ` Q${p.x},${p.y} ${(p.x + n.x) / 2},${(p.y + n.y) / 2}`;
  }
  const last = rest.at(-1)!;
  return `${d} L${last.x},${last.y}`;
}

function edgeClass(e: LaidOutEdge, taken: boolean): string {
  return ["edge", `kind-${e.kind}`, e.back ? "back" : "", taken ? "taken" : ""]
    .filter(Boolean)
    .join(" ");
}

export function GraphPanel(props: GraphPanelProps) {
  const { api, live, snapshot, threadId, branchId, revision, selectedEventId } = props;
  // Read again on each revision: `nodestep serve --watch` may have loaded a new graph.
  const [fresh, setFresh] = useState<GraphView | null>(null);
  useEffect(() => {
    let on = true;
    api.graph().then(
      (g) => on && setFresh(g),
      () => {},
    );
    return () => {
      on = false;
    };
  }, [api, revision]);
  const graph = fresh ?? props.graph;
  const hasEvents = (snapshot?.lastEventId ?? null) !== null;
  const layout = useMemo(() => (graph ? layoutGraph(graph) : null), [graph]);
  const [entries, setEntries] = useState<HistoryEntry[]>([]);
  const [zoom, setZoom] = useState(2);
  useEffect(() => {
    // A thread with no events yet (just created) has nothing to read.
    if (!threadId || !hasEvents) {
      setEntries([]);
      return;
    }
    let on = true;
    api.historyView(threadId, branchId).then(
      (e) => on && setEntries(e),
      () => on && setEntries([]),
    );
    return () => {
      on = false;
    };
  }, [api, threadId, branchId, revision, hasEvents]);
  const path = useMemo(
    () => (graph ? runPath(graph, currentRunEntries(entries, selectedEventId)) : null),
    [graph, entries, selectedEventId],
  );
  if (!graph || !layout) return <p class="muted">loading the graph…</p>;
  const running = new Set(live?.running ?? []);
  const next = new Set(selectedEventId || live ? [] : (snapshot?.next ?? []));
  const waiting = new Set((snapshot?.interrupts ?? []).map((i) => i.node ?? ""));
  const taken = new Set(path?.edges ?? []);
  const visited = new Set(path?.nodes ?? []);
  const scale = ZOOMS[zoom]!;
  const legend = legendItems({
    running: running.size,
    next: next.size,
    pathEdges: taken.size,
    chosenEvent: selectedEventId !== null,
  });
  return (
    <div class="graph-view">
      <div class="graph-tools">
        <button
          type="button"
          class="zoom-out"
          disabled={zoom === 0}
          onClick={() => setZoom(zoom - 1)}
        >
          −
        </button>
        <span class="muted zoom-level">{Math.round(scale * 100)}%</span>
        <button
          type="button"
          class="zoom-in"
          disabled={zoom === ZOOMS.length - 1}
          onClick={() => setZoom(zoom + 1)}
        >
          +
        </button>
        <span class="muted legend" data-testid="graph-legend">
          {graph.nodes.length} nodes
          {legend.length ? " · key:" : ""}
          {legend.map((item) => (
            <span key={item.mark} class={`key key-${item.mark}`}>
              <span class={`swatch swatch-${item.mark}`} aria-hidden="true" />
              {item.label}
            </span>
          ))}
        </span>
      </div>
      <div class="graph-scroll">
        <svg
          class="graph-svg"
          width={layout.width * scale}
          height={layout.height * scale}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="img"
          aria-label={`graph ${graph.name}`}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
            </marker>
            <marker
              id="arrow-taken"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" class="arrow-head taken" />
            </marker>
          </defs>
          {layout.edges.map((e) => {
            const isTaken = taken.has(edgeKey(e.from, e.to));
            return (
              <path
                key={`${e.from}>${e.to}>${e.kind}`}
                class={edgeClass(e, isTaken)}
                data-edge={edgeKey(e.from, e.to)}
                d={pathOf(e.points)}
                marker-end={isTaken ? "url(#arrow-taken)" : "url(#arrow)"}
              />
            );
          })}
          {layout.nodes.map((n) => {
            const cls = [
              "node",
              `kind-${n.kind}`,
              running.has(n.name) ? "running" : "",
              next.has(n.name) ? "next" : "",
              waiting.has(n.name) ? "waiting" : "",
              visited.has(n.name) ? "visited" : "",
            ]
              .filter(Boolean)
              .join(" ");
            return (
              <g key={n.name} class={cls} data-node={n.name} transform={`translate(${n.x},${n.y})`}>
                <title>
                  {n.name}
                  {n.pauseBefore ? " · pauses before" : ""}
                  {n.pauseAfter ? " · pauses after" : ""}
                  {n.deferred ? " · deferred" : ""}
                </title>
                <rect
                  width={n.width}
                  height={n.height}
                  rx={n.kind === "node" ? 6 : n.height / 2}
                  class={n.deferred ? "deferred" : ""}
                />
                <text
                  x={n.width / 2}
                  y={n.height / 2}
                  font-size={FONT_PX}
                  text-anchor="middle"
                  dominant-baseline="central"
                >
                  {n.pauseBefore ? "⏸ " : ""}
                  {n.label}
                  {n.pauseAfter ? " ⏸" : ""}
                </text>
              </g>
            );
          })}
          {layout.edges
            .filter((e) => e.labelAt !== null)
            .map((e) => (
              <g
                key={`label:${e.from}>${e.to}>${e.kind}`}
                class={`edge-label kind-${e.kind}${taken.has(edgeKey(e.from, e.to)) ? " taken" : ""}`}
                data-edge={edgeKey(e.from, e.to)}
                transform={`translate(${e.labelAt!.x},${e.labelAt!.y})`}
              >
                <rect
                  x={-e.labelWidth / 2}
                  y={-(EDGE_FONT_PX + 6) / 2}
                  width={e.labelWidth}
                  height={EDGE_FONT_PX + 6}
                  rx={3}
                />
                <text font-size={EDGE_FONT_PX} text-anchor="middle" dominant-baseline="central">
                  {e.label}
                </text>
              </g>
            ))}
        </svg>
      </div>
    </div>
  );
}
