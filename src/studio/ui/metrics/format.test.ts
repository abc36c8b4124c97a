import { expect, it } from "vitest";
import { ms, tokens, usd } from "./format.ts";

it("writes ms, tokens and dollars", () => {
  expect([ms(0), ms(812.4), ms(4210)]).toEqual(["0 ms", "812 ms", "4.21 s"]);
  expect(tokens(1234567)).toBe("1,234,567");
  expect(usd(null)).toBe("—");
  expect(usd({ usd: 0.36, byModel: {}, unpriced: [] })).toBe("$0.36");
  expect(usd({ usd: 0.00045, byModel: {}, unpriced: [] })).toBe("$0.0004500");
  expect(usd({ usd: 0, byModel: {}, unpriced: ["m"] })).toBe("$0 + unpriced");
});
