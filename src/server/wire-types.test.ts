/** The shared wire types stay the server's own: a drift is a type error here (typecheck) and a failed test. */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { JsonValue } from "../json/index.js";
import type { Cost as PriceCost } from "../middleware/prices.js";
import type { UsageTotals as MiddlewareUsage } from "../middleware/usage-totals.js";
import type { EventType as StoreEventType } from "../stores/types.js";
import type { describeGraph, GraphView } from "./graph-view.js";
import type { HistoryEntry, historyEntries } from "./history-view.js";
import type { diffJson, JsonChange } from "./json-diff.js";
import type { runMetrics } from "./run-metrics.js";
import type * as Wire from "./wire-types.js";

describe("wire types", () => {
  it("UsageTotals and Cost are the middleware's types; the metrics route answers them", () => {
    expectTypeOf<Wire.UsageTotals>().toEqualTypeOf<MiddlewareUsage>();
    expectTypeOf<Wire.Cost>().toEqualTypeOf<PriceCost>();
    expectTypeOf<ReturnType<typeof runMetrics>>().toEqualTypeOf<Wire.RunMetrics[]>();
  });

  it("Json and EventType are nodestep's; GraphView, JsonChange and HistoryEntry are the routes' own", () => {
    expectTypeOf<Wire.Json>().toEqualTypeOf<JsonValue>();
    expectTypeOf<Wire.EventType>().toEqualTypeOf<StoreEventType>();
    expectTypeOf<GraphView>().toEqualTypeOf<Wire.GraphView>();
    expectTypeOf<ReturnType<typeof describeGraph>>().toEqualTypeOf<Wire.GraphView>();
    expectTypeOf<JsonChange>().toEqualTypeOf<Wire.JsonChange>();
    expectTypeOf<ReturnType<typeof diffJson>["changes"]>().toEqualTypeOf<Wire.JsonChange[]>();
    expectTypeOf<HistoryEntry>().toEqualTypeOf<Wire.HistoryEntry>();
    expectTypeOf<ReturnType<typeof historyEntries>>().toEqualTypeOf<Wire.HistoryEntry[]>();
  });

  it("the module has no runtime part: importing it gives an empty module", async () => {
    expect(Object.keys(await import("./wire-types.js"))).toEqual([]);
  });
});
