import { describe, expect, it } from "vitest";
import { HumanMessage } from "../chat/messages.js";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import type { BranchInfo, StoredEvent } from "../stores/types.js";
import { branchTree } from "./history-route.js";
import { historyEntries } from "./history-view.js";

/** An AI message as the state holds it (every field filled in). */
const ai = (content: string) => ({
  type: "ai",
  id: "ID",
  content,
  finishReason: null,
  reasoning: [],
  refusal: null,
  toolCalls: [],
  usage: {},
});

/** The entries without what changes from run to run (ids of messages, times). */
function plain(entries: ReturnType<typeof historyEntries>) {
  return entries.map((e) => ({
    id: e.id,
    type: e.type,
    nodes: e.nodes,
    summary: e.summary,
    diff: JSON.parse(JSON.stringify(e.diff).replace(/"id":"[^"]+"/g, '"id":"ID"')),
    diffTruncated: e.diffTruncated,
  }));
}

describe("historyEntries", () => {
  it("gives each event its nodes, a summary and the change of the state it made", async () => {
    const store = new MemoryStateStore();
    const graph = buildRefundGraph({ stateStore: store });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 250" })] }, { threadId: "t" });
    await graph.invoke(null, { threadId: "t", resume: { approve: true } });
    const entries = historyEntries(graph.state, await graph.history("t"));
    expect(plain(entries)).toEqual([
      {
        id: "t/main/1",
        type: "run_started",
        nodes: [],
        summary: "you: Refund 250",
        diff: [
          {
            op: "add",
            path: ["messages", 0],
            value: { type: "human", id: "ID", content: "Refund 250" },
          },
        ],
        diffTruncated: false,
      },
      {
        id: "t/main/2",
        type: "step_committed",
        nodes: ["plan"],
        summary: "ai: A refund of 250 EUR needs approval. · also amount",
        diff: [
          {
            op: "add",
            path: ["messages", 1],
            value: ai("A refund of 250 EUR needs approval."),
          },
          { op: "replace", path: ["amount"], from: 0, to: 250 },
        ],
        diffTruncated: false,
      },
      {
        id: "t/main/3",
        type: "task_interrupted",
        nodes: ["approve"],
        summary: "asks approve: Refund 250 EUR?",
        diff: [],
        diffTruncated: false,
      },
      {
        id: "t/main/4",
        type: "run_finished",
        nodes: [],
        summary: "paused: waiting for approve",
        diff: [],
        diffTruncated: false,
      },
      {
        id: "t/main/5",
        type: "run_started",
        nodes: [],
        summary: "answered approve=true",
        diff: [],
        diffTruncated: false,
      },
      {
        id: "t/main/6",
        type: "step_committed",
        nodes: ["approve"],
        summary: "approved=true",
        diff: [{ op: "replace", path: ["approved"], from: null, to: true }],
        diffTruncated: false,
      },
      {
        id: "t/main/7",
        type: "step_committed",
        nodes: ["reply"],
        summary: "ai: Refunded 250 EUR.",
        diff: [
          {
            op: "add",
            path: ["messages", 2],
            value: ai("Refunded 250 EUR."),
          },
        ],
        diffTruncated: false,
      },
      {
        id: "t/main/8",
        type: "run_finished",
        nodes: [],
        summary: "completed",
        diff: [],
        diffTruncated: false,
      },
    ]);
  });

  it("diffs agree with getState at each event", async () => {
    const store = new MemoryStateStore();
    const graph = buildRefundGraph({ stateStore: store });
    await graph.invoke({ messages: [HumanMessage({ content: "Refund 30" })] }, { threadId: "u" });
    const events = await graph.history("u");
    const entries = historyEntries(graph.state, events, { maxChanges: 1 });
    expect(entries.map((e) => [e.diff.length, e.diffTruncated])).toEqual([
      [1, false],
      [1, true],
      [1, false],
      [0, false],
    ]);
    const at2 = await graph.getState("u", { eventId: "u/main/2" });
    expect(at2.state.amount).toBe(30);
    expect(entries[1]!.diff[0]).toMatchObject({ op: "add", path: ["messages", 1] });
  });
});

describe("branchTree", () => {
  const branch = (branchId: string, parent: BranchInfo["parent"], lastSeq: number): BranchInfo => ({
    threadId: "t",
    branchId,
    parent,
    lastSeq,
  });
  const event = (id: string, seq: number): StoredEvent => ({
    id,
    threadId: "t",
    branchId: "main",
    seq,
    createdAt: 0,
    type: "run_finished",
    runId: "r",
    step: 1,
    taskId: null,
    node: null,
    data: { status: "completed" },
  });

  it("puts forks under their parents, by fork point then name, with the fork point's summary", () => {
    const tree = branchTree(
      [
        branch("zeta", { branchId: "main", seq: 2 }, 4),
        branch("main", null, 5),
        branch("alpha", { branchId: "main", seq: 2 }, 3),
        branch("early", { branchId: "main", seq: 1 }, 2),
        branch("deep", { branchId: "alpha", seq: 3 }, 6),
      ],
      new Map([
        ["zeta", event("t/main/2", 2)],
        ["alpha", event("t/main/2", 2)],
        ["early", null],
        ["deep", event("t/alpha/3", 3)],
      ]),
    );
    const shape = (n: (typeof tree)[number]): unknown => ({
      b: n.branchId,
      at:
        n.parent && `${n.parent.branchId}@${n.parent.seq} ${n.parent.eventId} ${n.parent.summary}`,
      kids: n.children.map(shape),
    });
    expect(tree.map(shape)).toEqual([
      {
        b: "main",
        at: null,
        kids: [
          { b: "early", at: "main@1 null ", kids: [] },
          {
            b: "alpha",
            at: "main@2 t/main/2 run_finished: completed",
            kids: [{ b: "deep", at: "alpha@3 t/alpha/3 run_finished: completed", kids: [] }],
          },
          { b: "zeta", at: "main@2 t/main/2 run_finished: completed", kids: [] },
        ],
      },
    ]);
  });
});
