import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("the UI stream example prints what docs/ui-stream.md says", () => {
  it("examples/ui-stream/chat-route.ts", async () => {
    expect(await runExample("examples/ui-stream/chat-route.ts")).toBe(
      [
        "200 v1",
        "last event: [DONE]",
        "start start-step text-start text-delta tool-input-start tool-input-delta text-end tool-input-available tool-approval-request finish-step finish",
        "asked: Refund A-1? (approval 1:0#c1)",
        "200 v1",
        "last event: [DONE]",
        "start tool-output-available start-step text-start text-delta text-delta text-delta text-end finish-step finish",
        '{"type":"tool-output-available","toolCallId":"c1","output":"refunded A-1"}',
        '{"type":"finish","finishReason":"stop","messageMetadata":{"status":"done","usage":{}}}',
        "",
      ].join("\n"),
    );
  });
});
