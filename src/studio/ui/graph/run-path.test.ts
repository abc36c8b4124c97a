import { describe, expect, it } from "vitest";
import { HumanMessage } from "../../../chat/messages.js";
import { buildRefundGraph } from "../../../cli/fixtures/refund.fixture.js";
import { describeGraph } from "../../../server/graph-view.js";
import { historyEntries } from "../../../server/history-view.js";
import { MemoryStateStore } from "../../../stores/index.js";
import type { HistoryEntry } from "../api.ts";
import { currentRunEntries, runPath } from "./run-path.ts";

/** The entries as the server sends them (JSON). */
const entriesOf = (
  graph: ReturnType<typeof buildRefundGraph>,
  events: Parameters<typeof historyEntries>[1],
) => JSON.parse(JSON.stringify(historyEntries(graph.state, events))) as HistoryEntry[];

describe("runPath", () => {
  it("follows a run through its supersteps, paused and resumed, to END", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const view = describeGraph(graph);
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 250" })] }, { threadId: "t" });
    const paused = entriesOf(graph, await graph.history("t"));
    expect(runPath(view, paused)).toEqual({
      steps: [["plan"], ["approve"]],
      nodes: ["__start__", "plan", "approve"],
      edges: ["__start__>plan", "plan>approve"],
    });
    await graph.invoke(null, { threadId: "t", resume: { approve: true } });
    const done = entriesOf(graph, await graph.history("t"));
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

  it("takes the latest run and the resumes after it, or the entries up to a chosen event", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    const view = describeGraph(graph);
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 250" })] }, { threadId: "t" });
    await graph.invoke(null, { threadId: "t", resume: { approve: true } });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 20" })] }, { threadId: "t" });
    const all = entriesOf(graph, await graph.history("t"));
    const latest = currentRunEntries(all);
    expect(latest[0]!.summary).toBe("you: Refund 20");
    expect(runPath(view, latest).edges).toEqual(["__start__>plan", "plan>reply", "reply>__end__"]);
    // At event 6 (approve committed): the first run and its resume, up to there.
    const chosen = currentRunEntries(all, "t/main/6");
    expect(chosen.map((e) => e.id)).toEqual([
      "t/main/1",
      "t/main/2",
      "t/main/3",
      "t/main/4",
      "t/main/5",
      "t/main/6",
    ]);
    expect(runPath(view, chosen)).toEqual({
      steps: [["plan"], ["approve"]],
      nodes: ["__start__", "plan", "approve"],
      edges: ["__start__>plan", "plan>approve"],
    });
  });

  it("takes the otherwise side for a small amount", async () => {
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 20" })] }, { threadId: "s" });
    const entries = entriesOf(graph, await graph.history("s"));
    expect(runPath(describeGraph(graph), entries).edges).toEqual([
      "__start__>plan",
      "plan>reply",
      "reply>__end__",
    ]);
  });
});
