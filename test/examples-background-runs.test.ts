import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("the background runs example prints what docs/background-runs.md says", () => {
  it("examples/background-runs/rejoin.ts", async () => {
    expect(await runExample("examples/background-runs/rejoin.ts")).toBe(
      [
        "1 run",
        "2 custom",
        "3 updates",
        "4 custom",
        "after the client left: running",
        '5 updates {"report":"notes → report"}',
        '6 end {"report":"notes → report"}',
        "",
      ].join("\n"),
    );
  });
});
