import { describe, expect, it } from "vitest";
import { describeGraph } from "../../../server/graph-view.js";
import { FONT_PX, type GraphLayout, layoutGraph, textWidth } from "./layout.ts";
import { buildThirtyNodeGraph } from "./thirty-nodes.fixture.ts";

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

function labelBoxes(layout: GraphLayout): (Box & { text: string })[] {
  return layout.edges
    .filter((e) => e.labelAt !== null)
    .map((e) => ({
      text: e.label!,
      x: e.labelAt!.x - e.labelWidth / 2,
      y: e.labelAt!.y - 9,
      width: e.labelWidth,
      height: 18,
    }));
}

describe("layoutGraph", () => {
  const view = describeGraph(buildThirtyNodeGraph({ stateStore: null }));
  const layout = layoutGraph(view);

  it("lays out 30 nodes (and START, END) with no two boxes overlapping, inside the drawing", () => {
    expect(view.nodes.length).toBe(30);
    expect(layout.nodes.map((n) => n.name)).toEqual(["__start__", ...view.nodes, "__end__"]);
    for (const [i, a] of layout.nodes.entries()) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(layout.width);
      expect(a.y + a.height).toBeLessThanOrEqual(layout.height);
      for (const b of layout.nodes.slice(i + 1))
        expect([a.name, b.name, overlap(a, b)]).toEqual([a.name, b.name, false]);
    }
  });

  it("keeps each box wide enough for its name at the fixed font size", () => {
    for (const n of layout.nodes) expect(n.width).toBeGreaterThanOrEqual(textWidth(n.label) + 32);
    expect(FONT_PX).toBe(14);
  });

  it("labels every conditional edge with its condition, clear of the boxes", () => {
    const when = view.edges.filter((e) => e.kind === "when" || e.kind === "otherwise");
    expect(when.map((e) => e.label)).toEqual([
      "isBilling",
      "not isBilling",
      "isShipping",
      "needsRetry",
      "not needsRetry",
      "needsRetry",
      "not needsRetry",
      "needsRetry",
      "not needsRetry",
    ]);
    const labels = labelBoxes(layout);
    expect(labels.map((l) => l.text).filter((t) => t !== "join")).toEqual(when.map((e) => e.label));
    for (const l of labels)
      for (const n of layout.nodes)
        expect([l.text, n.name, overlap(l, n)]).toEqual([l.text, n.name, false]);
  });

  it("draws joins, loops going back up, breakpoints and the deferred node", () => {
    expect(layout.edges.filter((e) => e.kind === "join").map((e) => `${e.from}>${e.to}`)).toEqual([
      "billing_log>merge_results",
      "shipping_log>merge_results",
    ]);
    expect(layout.edges.filter((e) => e.back).map((e) => `${e.from}>${e.to}`)).toEqual([
      "billing_price>billing_lookup",
      "shipping_price>shipping_lookup",
      "returns_price>returns_lookup",
    ]);
    const marked = layout.nodes.filter((n) => n.pauseBefore || n.pauseAfter || n.deferred);
    expect(marked.map((n) => [n.name, n.pauseBefore, n.pauseAfter, n.deferred])).toEqual([
      ["billing_send", true, false, false],
      ["audit_trail", false, true, false],
      ["summarize_thread", false, false, true],
    ]);
    for (const e of layout.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
  });

  it("is the same layout for the same view (pure)", () => {
    expect(layoutGraph(view)).toEqual(layout);
  });
});
