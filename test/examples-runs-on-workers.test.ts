import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

describe("the runs-on-workers example prints what docs/workers.md says", () => {
  it("examples/runs-on-workers/main.ts (two servers, a nodestep worker process, PostgreSQL, Redis)", async () => {
    expect(await runExample("examples/runs-on-workers/main.ts")).toBe(
      [
        "on server A:",
        "  1 run",
        '  2 custom {"step":"notes"}',
        "  3 updates",
        '  4 custom {"step":"report"}',
        "  5 updates",
        '  6 end "notes on tides → report"',
        "joined on server B after event 3:",
        '  4 custom {"step":"report"}',
        "  5 updates",
        '  6 end "notes on tides → report"',
        "server B lists: the run done",
        "",
      ].join("\n"),
    );
  });
});
