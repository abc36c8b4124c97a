// A run's start tasks (scheduleStart): START's edges, synchronous conditions or async ones,
// threadless and on a thread.
import { describe, expect, it } from "vitest";
import { MemoryStateStore } from "../stores/memory-state-store.js";
import { type S, State } from "./graph.fixture.js";
import { Graph } from "./graph.js";
import { node, START } from "./node.js";
import { END, when } from "./routing.js";

const named = (name: string) => node(() => ({ log: [name] }), { name });

/** A graph whose start tasks are a, then b or c (by `pickB`), then d unless the count is 0. */
function startGraph(pickB: (s: S) => boolean | Promise<boolean>) {
  const [a, b, c, d] = ["a", "b", "c", "d"].map(named) as [
    ReturnType<typeof named>,
    ReturnType<typeof named>,
    ReturnType<typeof named>,
    ReturnType<typeof named>,
  ];
  return new Graph(State, { stateStore: new MemoryStateStore() }).flow(
    START.to([
      a,
      when(pickB, b, { otherwise: c }),
      when((s: S) => s.count === 0, END, { otherwise: d }),
    ]),
    a.to(END),
    b.to(END),
    c.to(END),
    d.to(END),
  );
}

describe("a run's start tasks", () => {
  it("are START's targets in edge order, with synchronous or async conditions", async () => {
    for (const pickB of [(s: S) => s.count > 1, async (s: S) => s.count > 1]) {
      const g = startGraph(pickB);
      expect((await g.invoke({ count: 2 })).state.log).toEqual(["a", "b", "d"]);
      expect((await g.invoke({ count: 0 })).state.log).toEqual(["a", "c"]);
      const first = await g.invoke({ count: 2 }, { threadId: "t" });
      expect(first.state.log).toEqual(["a", "b", "d"]);
      const events = await g.stateStore!.read("t", "main");
      expect(events[0]!.data).toMatchObject({ tasks: ["a", "b", "d"] });
    }
  });
});
