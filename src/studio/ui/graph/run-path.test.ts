import { describe, expect, it } from "vitest";
import { HumanMessage } from "../../../chat/messages.js";
import { buildRefundGraph } from "../../../cli/fixtures/refund.fixture.js";
import { describeGraph } from "../../../server/graph-view.js";
import { historyEntries } from "../../../server/history-view.js";
import { MemoryStateStore } from "../../../stores/index.js";
import { runPath } from "./run-path.js";

describe("runPath", () => {
  it("follows a run through its supersteps, paused and resumed, to END", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const view = describeGraph(graph);
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 250" })] }, { threadId: "t" });
    const paused = historyEntries(graph.state, await graph.history("t"));
    expect(runPath(view, paused)).toEqual({
      steps: [["plan"], ["approve"]],
      nodes: ["__start__", "plan", "approve"],
      edges: ["__start__>plan", "plan>approve"],
    });
    await graph.invoke(null, { threadId: "t", resume: { approve: true } });
    const done = historyEntries(graph.state, await graph.history("t"));
    expect(runPath(view, done)).toEqual({
      steps: [["plan"], ["approve"], ["reply"]],
      nodes: ["__start__", "plan", "approve", "reply", "__end__"],
      edges: ["__start__>plan", "plan>approve", "approve>reply", "reply>__end__"],
    });
    // Only the resume: it starts at superstep 1, so not from START.
    const resume = done.filter((e) => e.runId === done.at(-1)!.runId);
    expect(runPath(view, resume)).toEqual({
      steps: [["approve"], ["reply"]],
      nodes: ["approve", "reply", "__end__"],
      edges: ["approve>reply", "reply>__end__"],
    });
  });

  it("takes the otherwise side for a small amount", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 20" })] }, { threadId: "s" });
    const entries = historyEntries(graph.state, await graph.history("s"));
    expect(runPath(describeGraph(graph), entries).edges).toEqual([
      "__start__>plan",
      "plan>reply",
      "reply>__end__",
    ]);
  });
});
