import { expect, it } from "vitest";
import { compactTokens, ms, runLabel, spanName, tokens, usd } from "./format.ts";

it("writes ms, tokens and dollars", () => {
  expect([ms(0), ms(812.4), ms(4210)]).toEqual(["0 ms", "812 ms", "4.21 s"]);
  expect(tokens(1234567)).toBe("1,234,567");
  expect(usd(null)).toBe("—");
  expect(usd({ usd: 0.36, byModel: {}, unpriced: [] })).toBe("$0.36");
  expect(usd({ usd: 0.00045, byModel: {}, unpriced: [] })).toBe("$0.0004500");
  expect(usd({ usd: 0, byModel: {}, unpriced: ["m"] })).toBe("$0 + unpriced");
});

it("writes token counts compactly for narrow columns", () => {
  expect(
    [0, 950, 999, 1000, 1049, 12_345, 99_949, 99_950, 123_456, 999_499, 999_500, 4_200_000].map(
      compactTokens,
    ),
  ).toEqual([
    "0",
    "950",
    "999",
    "1k",
    "1k",
    "12.3k",
    "99.9k",
    "100k",
    "123k",
    "999k",
    "1M",
    "4.2M",
  ]);
  expect(compactTokens(2_500_000_000)).toBe("2.5G");
});

it("names a trace span without repeating its kind", () => {
  expect(
    [
      { kind: "model", name: "gpt-4o-mini" },
      { kind: "model", name: "unknown" },
      { kind: "model", name: "model" },
      { kind: "tool", name: "lookup" },
      { kind: "node", name: "node" },
    ].map((s) => spanName(s as Parameters<typeof spanName>[0])),
  ).toEqual(["gpt-4o-mini", "(name not reported)", "(name not reported)", "lookup", ""]);
});

it("labels a run by its number and the start of its id", () => {
  expect(runLabel("r-31f0f351ad7e658a", 0)).toBe("#1 31f0f3");
  expect(runLabel("run-3a5f6610-6c1b", 1)).toBe("#2 3a5f66");
  expect(runLabel("custom", 2)).toBe("#3 custom");
});
