import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("examples/memory", () => {
  it("remember-across-threads.ts: a fact learned on one thread is used on another, for its user only", async () => {
    expect(await runExample("examples/memory/remember-across-threads.ts")).toBe(
      [
        "thread-1: Noted: green tea.",
        'tool result: {"result":{"key":"m-3f9a15e81f9c98d4"}}',
        "thread-2 u-42: How about a green tea?",
        "thread-2 u-7: Coffee?",
        'model saw for u-42: "Relevant memories (most relevant first):\\n- The user drinks green tea, never coffee."',
        'model saw for u-7: "(no memories)"',
        "",
      ].join("\n"),
    );
  }, 60_000);
});
