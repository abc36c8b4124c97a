/** The shared wire types stay the server's own: a drift is a type error here (typecheck) and a failed test. */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Cost as PriceCost } from "../middleware/prices.js";
import type { UsageTotals as MiddlewareUsage } from "../middleware/usage-totals.js";
import type { runMetrics } from "./run-metrics.js";
import type * as Wire from "./wire-types.js";

describe("wire types", () => {
  it("UsageTotals and Cost are the middleware's types; the metrics route answers them", () => {
    expectTypeOf<Wire.UsageTotals>().toEqualTypeOf<MiddlewareUsage>();
    expectTypeOf<Wire.Cost>().toEqualTypeOf<PriceCost>();
    expectTypeOf<ReturnType<typeof runMetrics>>().toEqualTypeOf<Wire.RunMetrics[]>();
  });

  it("the module has no runtime part: importing it gives an empty module", async () => {
    expect(Object.keys(await import("./wire-types.js"))).toEqual([]);
  });
});
