/**
 * The studio's graph drawing, laid out: a pure function from the graph view JSON
 * (`GET /api/graph`) to boxes and edge paths, by dagre (`@dagrejs/dagre`, a layered layout made
 * for directed graphs, bundled into the studio). Labels keep one font size whatever the size
 * of the graph: boxes grow with their text, and the drawing scrolls (or zooms) instead of
 * shrinking text.
 *
 * @module
 */
import dagre, { type EdgeLabel, type Point } from "@dagrejs/dagre";
import type { GraphView, GraphViewEdge } from "../api.ts";

/** The font size of every label in the drawing, in px (never shrunk). */
export const FONT_PX = 14;
/** The font size of edge labels, in px. */
export const EDGE_FONT_PX = 12;
/** Width of one character of a label, in px (an upper bound for the sans-serif used at {@link FONT_PX}). */
const CHAR_PX = FONT_PX * 0.62;
const EDGE_CHAR_PX = EDGE_FONT_PX * 0.62;
const NODE_HEIGHT = 40;
const PAD_X = 16;

/** A box of the drawing. `x`, `y` are its top-left corner, in px. */
export interface LaidOutNode {
  /** The node's name (`"__start__"`, `"__end__"` for START and END). */
  name: string;
  /** The text in the box: the name, or `START` / `END`. */
  label: string;
  kind: "start" | "end" | "node";
  x: number;
  y: number;
  width: number;
  height: number;
  /** Breakpoints set on the node. */
  pauseBefore: boolean;
  pauseAfter: boolean;
  deferred: boolean;
}

/** An edge of the drawing. */
export interface LaidOutEdge {
  from: string;
  to: string;
  kind: GraphViewEdge["kind"];
  /** The condition's name on a conditional edge (`"not …"` on its otherwise side), `"goto"`, `"join"`, or `null`. */
  label: string | null;
  /** The edge's path, in px: from the source box's border to the target box's border. */
  points: { x: number; y: number }[];
  /** Where its label is centred, or `null` without a label. */
  labelAt: { x: number; y: number } | null;
  /** Width of its label, in px (0 without one). */
  labelWidth: number;
  /** Whether it goes back up the drawing (a loop such as act → think). */
  back: boolean;
}

/** A laid-out graph. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
}

const START = "__start__";
const END = "__end__";

/** The label of an edge: a `when` edge's condition name, `goto`, `join`, or none. */
export function edgeLabel(e: GraphViewEdge): string | null {
  if (e.kind === "when" || e.kind === "otherwise")
    return e.label ?? (e.kind === "when" ? "when" : "otherwise");
  if (e.kind === "goto" || e.kind === "join") return e.kind;
  return null;
}

/** The width of a text at the drawing's font size, in px (rounded up). */
export function textWidth(text: string, edge = false): number {
  return Math.ceil(text.length * (edge ? EDGE_CHAR_PX : CHAR_PX));
}

const inList = (list: string[] | "*", name: string) => list === "*" || list.includes(name);

/**
 * Lay out a graph view, top to bottom. START and END are drawn when an edge names them.
 * Every edge keeps its label, placed by dagre between the ranks so that it does not cover a box.
 *
 * @example layoutGraph(await (await fetch("/api/graph")).json()).nodes[0] // { name: "__start__", label: "START", x: 52, y: 0, ... }
 */
export function layoutGraph(view: GraphView): GraphLayout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 40, ranksep: 56, edgesep: 16, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const used = new Set(view.edges.flatMap((e) => [e.from, e.to]));
  const names = [
    ...(used.has(START) ? [START] : []),
    ...view.nodes,
    ...(used.has(END) ? [END] : []),
  ];
  const before = view.breakpoints?.before ?? [];
  const after = view.breakpoints?.after ?? [];
  const deferred = new Set(view.deferred ?? []);
  const meta = new Map<string, Omit<LaidOutNode, "x" | "y">>();
  for (const name of names) {
    const kind = name === START ? "start" : name === END ? "end" : "node";
    const label = kind === "start" ? "START" : kind === "end" ? "END" : name;
    const marks = kind === "node" && (inList(before, name) || inList(after, name)) ? 2 : 0;
    const width = Math.max(72, textWidth(label) + 2 * PAD_X + marks * 12);
    meta.set(name, {
      name,
      label,
      kind,
      width,
      height: NODE_HEIGHT,
      pauseBefore: kind === "node" && inList(before, name),
      pauseAfter: kind === "node" && inList(after, name),
      deferred: deferred.has(name),
    });
    g.setNode(name, { width, height: NODE_HEIGHT });
  }
  view.edges.forEach((e, i) => {
    const label = edgeLabel(e);
    g.setEdge(
      e.from,
      e.to,
      label === null
        ? { minlen: 1 }
        : { width: textWidth(label, true) + 8, height: EDGE_FONT_PX + 6, labelpos: "c", minlen: 1 },
      `e${i}`,
    );
  });
  dagre.layout(g);
  const graph = g.graph();
  const nodes: LaidOutNode[] = names.map((name) => {
    const at = g.node(name);
    const m = meta.get(name)!;
    return { ...m, x: Math.round(at.x - m.width / 2), y: Math.round(at.y - m.height / 2) };
  });
  const centre = new Map(names.map((n) => [n, g.node(n)]));
  const edges: LaidOutEdge[] = view.edges.map((e, i) => {
    const at = g.edge({ v: e.from, w: e.to, name: `e${i}` }) as EdgeLabel;
    const label = edgeLabel(e);
    return {
      from: e.from,
      to: e.to,
      kind: e.kind,
      label,
      points: (at.points ?? []).map((p: Point) => ({ x: Math.round(p.x), y: Math.round(p.y) })),
      labelAt:
        label === null || at.x === undefined || at.y === undefined
          ? null
          : { x: Math.round(at.x), y: Math.round(at.y) },
      labelWidth: label === null ? 0 : textWidth(label, true) + 8,
      back: (centre.get(e.to)?.y ?? 0) < (centre.get(e.from)?.y ?? 0),
    };
  });
  return {
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
    nodes,
    edges,
  };
}
