import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("the stream modes example prints what docs/streaming.md says", () => {
  it("examples/graphs/stream-modes.ts", async () => {
    expect(await runExample("examples/graphs/stream-modes.ts")).toBe(
      [
        "tasks 0 draft 0:0 start",
        "tasks 0 draft/outline 0:0/0:0 start",
        'tasks 0 draft/outline 0:0/0:0 result {"log":["outline"]}',
        "checkpoints 0 draft 0:0 doc:draft/main/2 next=[write] log=[outline]",
        "tasks 0 draft/write 0:0/1:0 start",
        'tasks 0 draft/write 0:0/1:0 result {"log":["write"]}',
        "checkpoints 0 draft 0:0 doc:draft/main/3 next=[] log=[outline,write]",
        'tasks 0 draft 0:0 result {"log":["outline","write"]}',
        "checkpoints 0 - - doc/main/3 next=[publish] log=[outline,write]",
        "tasks 1 publish 1:0 start",
        'tasks 1 publish 1:0 result {"log":["publish"]}',
        "checkpoints 1 - - doc/main/4 next=[] log=[outline,write,publish]",
        "debug task@0 task@0 task_result@0 checkpoint@0 task@1 task_result@1 checkpoint@1 task_result@0 checkpoint@0 task@1 task_result@1 checkpoint@1",
        "messages think ai (tool calls)",
        'messages act tool {"result":"sunny in Lisbon"}',
        "messages think ai It is sunny in Lisbon.",
        "",
      ].join("\n"),
    );
  });
});
