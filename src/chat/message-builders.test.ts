import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "./messages.js";

// Callers without TypeScript's check (JavaScript, `as never`, LangChain habits) pass a string.
const loose = (f: (init: never) => unknown, init: unknown) => () => f(init as never);

describe("message builders refuse an init that is not an object", () => {
  it("names the builder and what it got", () => {
    expect(loose(HumanMessage, "Plan my trip")).toThrow(
      new TypeError(
        'HumanMessage(init): init must be an object such as { content: "…" }, got the string "Plan my trip"',
      ),
    );
    expect(loose(SystemMessage, null)).toThrow(
      new TypeError(
        'SystemMessage(init): init must be an object such as { content: "…" }, got null',
      ),
    );
    expect(loose(AIMessage, ["hi"])).toThrow(
      new TypeError(
        'AIMessage(init): init must be an object such as { content: "…" }, got an array',
      ),
    );
    expect(loose(ToolMessage, 42)).toThrow(
      new TypeError(
        'ToolMessage(init): init must be an object such as { content: "…" }, got a number',
      ),
    );
    expect(loose(HumanMessage, "x".repeat(50))).toThrow(
      new TypeError(
        `HumanMessage(init): init must be an object such as { content: "…" }, got the string "${"x".repeat(40)}…"`,
      ),
    );
  });

  it("still builds from an object, and from nothing", () => {
    expect(HumanMessage({ content: "hi" })).toEqual({ type: "human", id: null, content: "hi" });
    expect(HumanMessage()).toEqual({ type: "human", id: null, content: null });
    expect(SystemMessage({ content: "s", id: "m1" })).toEqual({
      type: "system",
      id: "m1",
      content: "s",
    });
  });
});
