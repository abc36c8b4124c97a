// Node policies: retry a flaky node with back-off, and cache a slow node's result by its input.

import { defineState, END, Graph, node, START } from "nodestep";
import { z } from "zod";

const State = defineState({
  city: z.string().default(""),
  forecast: z.string().nullable().default(null),
});
type S = typeof State.State;

let calls = 0;
const forecast = node(
  (s: S) => {
    calls++;
    if (calls === 1) throw new Error("weather service timed out");
    return { forecast: `sunny in ${s.city}` };
  },
  {
    name: "forecast",
    retry: { maxAttempts: 3, initialIntervalMs: 10, jitter: false },
    cache: { key: (s) => String(s.city).toLowerCase(), ttlMs: 60_000 },
  },
);
const graph = new Graph(State).flow(START.to(forecast), forecast.to(END));

console.log((await graph.invoke({ city: "Lisbon" })).state.forecast, `(${calls} calls)`);
console.log((await graph.invoke({ city: "lisbon" })).state.forecast, `(${calls} calls, cached)`);
