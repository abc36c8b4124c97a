import { describe, expect, it } from "vitest";
import type { Json, RunStreamEvent } from "./api.ts";
import { applyRunEvent, emptyRun } from "./live-run.ts";

const ev = (
  mode: RunStreamEvent["mode"],
  node: string,
  taskId: string,
  data: Json,
): RunStreamEvent => ({
  mode,
  node,
  step: 0,
  taskId,
  data,
});

describe("applyRunEvent", () => {
  it("marks a node running from its task's start to its result, and gathers its streamed text", () => {
    let run = emptyRun();
    run = applyRunEvent(run, ev("tasks", "think", "0:0", { kind: "start" }));
    expect(run.running).toEqual(["think"]);
    run = applyRunEvent(
      run,
      ev("tokens", "think", "0:0", { reasoningDelta: { index: 0, text: "hm" } }),
    );
    run = applyRunEvent(run, ev("tokens", "think", "0:0", { contentDelta: "Hel" }));
    run = applyRunEvent(run, ev("tokens", "think", "0:0", { contentDelta: "lo" }));
    expect(run.tokens).toEqual({ "0:0": { node: "think", text: "Hello", reasoning: "hm" } });
    // The task's update carries the finished message: the streamed text is done.
    const message = { type: "ai", id: "m", content: "Hello" };
    run = applyRunEvent(run, ev("updates", "think", "0:0", { messages: [message] }));
    expect(run.tokens).toEqual({});
    expect(run.messages).toEqual([message]);
    run = applyRunEvent(run, ev("tasks", "think", "0:0", { kind: "result" }));
    expect(run.running).toEqual([]);
    expect(run.events.map((e) => e.mode)).toEqual([
      "tasks",
      "tokens",
      "tokens",
      "tokens",
      "updates",
      "tasks",
    ]);
  });

  it("keeps parallel tasks of one node apart", () => {
    let run = emptyRun();
    run = applyRunEvent(run, ev("tasks", "act", "1:0", { kind: "start" }));
    run = applyRunEvent(run, ev("tasks", "act", "1:1", { kind: "start" }));
    run = applyRunEvent(run, ev("tasks", "act", "1:0", { kind: "result" }));
    expect(run.running).toEqual(["act"]);
  });
});
