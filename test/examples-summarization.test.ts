import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("summarization example prints what docs/summarization.md says", () => {
  it("examples/middleware/summarize-thread.ts", async () => {
    expect(await runExample("examples/middleware/summarize-thread.ts")).toBe(
      [
        "after the summary:",
        '  human: "Here is a summary of the conversation to date:\\n\\nThe user asked about order A-1; it has shipped."',
        '  ai: "A-1 has shipped."',
        '  human: "Sure?"',
        '  ai: "Yes."',
        "the small model was asked:",
        '  "Conversation:\\nUser: Where is order A-1?\\nAssistant called lookup({\\"orderId\\":\\"A-1\\"})\\nTool lookup returned: {\\"result\\":\\"A-1 shipped\\"}"',
        "the fork before it holds 5 messages:",
        '  human: "Where is order A-1?"',
        "  ai: null",
        '  tool: "{\\"result\\":\\"A-1 shipped\\"}"',
        '  ai: "A-1 has shipped."',
        '  human: "Sure?"',
        'after a failed summary: 6 messages, answer "Anything else?"',
        "",
      ].join("\n"),
    );
  });
});
