/**
 * bench/results.ts: the shape of `npm run bench -- --json FILE` (every part's key present,
 * null when the part did not run; the total the sum of the parts; model rows named).
 */
import { describe, expect, it } from "vitest";
import type { Row } from "../bench/report.js";
import { benchJson, modelFigure, PARTS, partsSummary } from "../bench/results.js";

const machine = {
  cpu: "Test CPU",
  cores: 2,
  node: "v20.20.2",
  loadAtStart: "1.00 1.00 1.00",
  loadAtEnd: "2.00 1.50 1.00",
};

const row: Row = {
  workload: "loop",
  store: "none",
  param: 1000,
  nodestep: { runs: 1, totalMs: 1.5, cpuMs: 1.4, usPerStep: 1.5, peakRssMb: 80 },
  langgraph: null,
  ratio: {},
  seconds: { nodestep: [2.5], langgraph: [] },
};

describe("benchJson", () => {
  it("has every part's key, null for the parts that did not run", () => {
    const out = benchJson({ machine, parts: [{ part: "cases", seconds: 2.5 }], cases: [row] });
    expect(out).toEqual({
      machine,
      totalSeconds: 2.5,
      parts: [{ part: "cases", seconds: 2.5 }],
      cases: [row],
      targets: null,
      import: null,
      models: null,
      memory: null,
      workers: null,
      cold: null,
      streaming: null,
      "postgres-ab": null,
    });
  });

  it("keeps what the parts of their own wrote, names the model rows, sums the seconds", () => {
    const out = benchJson({
      machine,
      parts: [
        { part: "import", seconds: 10 },
        { part: "models", seconds: 4.5 },
        { part: "streaming", seconds: 20.25 },
      ],
      targets: [{ target: "t", holds: true, detail: "d" }],
      own: {
        import: [{ case: "nodestep", medianMs: 40 }],
        streaming: [{ case: "nodestep graph.stream tokens", usPerToken: 1.5 }],
      },
      models: [["fallbackChat, complete", { wall: 0.5, cpu: 0.25 }, { wall: 2, cpu: 1.5 }]],
    });
    expect(out.totalSeconds).toBe(34.75);
    expect(out.import).toEqual([{ case: "nodestep", medianMs: 40 }]);
    expect(out.streaming).toEqual([{ case: "nodestep graph.stream tokens", usPerToken: 1.5 }]);
    expect(out.targets).toEqual([{ target: "t", holds: true, detail: "d" }]);
    expect(out.models).toEqual([
      {
        case: "fallbackChat, complete",
        directUs: 0.5,
        wrappedUs: 2,
        directCpuUs: 0.25,
        wrappedCpuUs: 1.5,
        overheadUs: 1.5,
        overheadCpuUs: 1.25,
      },
    ]);
    expect(out.cases).toBeNull();
    expect(out.memory).toBeNull();
    expect(Object.keys(out)).toEqual([
      "machine",
      "totalSeconds",
      "parts",
      "cases",
      "targets",
      ...PARTS.filter((p) => p !== "cases"),
    ]);
  });
});

describe("modelFigure", () => {
  it("takes the overhead as wrapped less direct, wall and CPU", () => {
    expect(modelFigure(["x", { wall: 3, cpu: 2 }, { wall: 2, cpu: 2.5 }])).toEqual({
      case: "x",
      directUs: 3,
      wrappedUs: 2,
      directCpuUs: 2,
      wrappedCpuUs: 2.5,
      overheadUs: -1,
      overheadCpuUs: 0.5,
    });
  });
});

describe("partsSummary", () => {
  it("prints one line per part and the total in seconds and minutes", () => {
    expect(
      partsSummary([
        { part: "import", seconds: 12.34 },
        { part: "postgres-ab", seconds: 107.66 },
      ]),
    ).toBe(
      [
        "  import         12.3 s",
        "  postgres-ab   107.7 s",
        "  total         120.0 s (2.0 min)",
      ].join("\n"),
    );
  });
});
