// The node cache: updates events say when a result came from it; clearCache drops entries.

import { defineState, END, Graph, node, START, type StreamEvent } from "nodestep";
import { z } from "zod";

const State = defineState({ city: z.string().default(""), forecast: z.string().default("") });
type S = typeof State.State;

let calls = 0;
const forecast = node((s: S) => ({ forecast: `sunny in ${s.city} (call ${++calls})` }), {
  name: "forecast",
  cache: { ttlMs: 60_000 },
});
const graph = new Graph(State).flow(START.to(forecast), forecast.to(END));

const run = async () => {
  const events: StreamEvent[] = [];
  const r = await graph.invoke(
    { city: "Oslo" },
    { onEvent: (e) => events.push(e), modes: ["updates"] },
  );
  console.log(r.state.forecast, "| cached:", events[0]?.cached === true);
};
await run();
await run();
await graph.clearCache(["forecast"]);
await run();
