// A supervisor that hands each topic to a researcher agent, runs them in parallel with
// ctx.spawn, waits for all of them with ctx.gather and merges their answers. One process.

import { END, Graph, MemoryStateStore, node, START } from "nodestep";
import { mergeReport, QUESTION, researcher, researchInput, Supervisor, TOPICS } from "./team.js";

const plan = node((s: Supervisor) => ({ topics: s.topics.length > 0 ? s.topics : TOPICS }), {
  name: "plan",
});

const research = node(
  async (s: Supervisor, ctx) => {
    const handles = await ctx.spawn(
      s.topics.map((topic) => ({ graph: researcher, input: researchInput(topic) })),
    );
    const results = await ctx.gather(handles, { timeoutMs: 10_000 });
    return {
      findings: results.map((r) => (r.state as { finalText: string | null }).finalText ?? ""),
    };
  },
  { name: "research" },
);

const merge = node((s: Supervisor) => ({ report: mergeReport(s.question, s.findings) }), {
  name: "merge",
});

const store = new MemoryStateStore();
const supervisor = new Graph(Supervisor, { name: "supervisor", stateStore: store }).flow(
  START.to(plan),
  plan.to(research),
  research.to(merge),
  merge.to(END),
);

const { state } = await supervisor.invoke({ question: QUESTION }, { threadId: "tides-1" });
console.log(state.report);
// Each researcher ran on its own thread, "tides-1:sub:<id>", in the supervisor's store.
const threads = (await store.listThreads()).map((t) => t.threadId);
console.log(`${threads.filter((t) => t.startsWith("tides-1:sub:")).length} researcher threads`);
