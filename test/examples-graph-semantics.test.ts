import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

// The examples of issue 14's graph semantics print what their docs pages say.
const expected: Record<string, string> = {
  "examples/graph-semantics/breakpoints.ts": [
    'interrupted {"when":"after","step":1,"nodes":["draft"]} drafted',
    'interrupted {"when":"before","step":2,"nodes":["send"]} send',
    "completed drafted,reviewed,sent",
    '  n2["send (pause before)"]',
    "",
  ].join("\n"),
  "examples/graph-semantics/edit-state.ts": [
    "next: shelve",
    "after updateState asNode: send",
    "a: draft,sent",
    "b: draft,note by hand,shelved",
    "c: draft,sent true",
    "branch: draft,second thoughts,shelved",
    "event: state_updated",
    "",
  ].join("\n"),
  "examples/graph-semantics/error-handler.ts": [
    "completed 2 failed: price service unavailable | answer from the cache",
    '{"name":"Error","message":"price service unavailable"}',
    "",
  ].join("\n"),
  "examples/graph-semantics/clear-cache.ts": [
    "sunny in Oslo (call 1) | cached: false",
    "sunny in Oslo (call 1) | cached: true",
    "sunny in Oslo (call 2) | cached: false",
    "",
  ].join("\n"),
  "examples/graph-semantics/map-reduce.ts": [
    "3,6,6",
    "reduce@2: 15 (fetched+checked)",
    "audit@3: 1 entries",
    '  n4["audit (deferred)"]',
    "  n1 & n3 ==>|join| n5",
    "",
  ].join("\n"),
};

describe("graph-semantics examples", () => {
  for (const [file, out] of Object.entries(expected)) {
    it(file, async () => {
      expect(await runExample(file)).toBe(out);
    });
  }
});
