import { describe, expect, it } from "vitest";
import { parseToolArguments, ToolCall } from "./tool-call.js";

describe("parseToolArguments", () => {
  it("parses an object, and refuses what is not one with what it got", () => {
    expect(parseToolArguments('{"orderId":"A-1"}')).toEqual([{ orderId: "A-1" }, null]);
    expect(parseToolArguments("")).toEqual([{}, null]);
    expect(parseToolArguments("[1]")).toEqual([
      {},
      "Tool arguments must be a JSON object, got an array",
    ]);
  });

  it("refuses arguments nested deeper than MAX_JSON_DEPTH, naming where, as invalid arguments", () => {
    // 511 arrays inside the object: 512 levels, the limit.
    const ok = `{"a":${"[".repeat(511)}${"]".repeat(511)}}`;
    expect(parseToolArguments(ok)[1]).toBe(null);
    const deep = `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const [args, error] = parseToolArguments(deep);
    expect(args).toEqual({});
    expect(error).toBe(
      `Tool arguments nest deeper than 512 levels (at ${`arguments.a${"[0]".repeat(511)}`.slice(0, 60)}…)`,
    );
    expect(ToolCall.fromArgumentsJson("c1", "t", deep)).toEqual({
      id: "c1",
      name: "t",
      arguments: {},
      argumentsError: error,
    });
  });
});
