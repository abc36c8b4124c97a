/** Issue 13, item 11: ScriptedChat refuses malformed scripted responses with a TypeError naming them. */
import { describe, it } from "vitest";
import { expectError } from "../../test/helpers.js";
import { ScriptedChat, type ScriptedResponse } from "./index.js";

const cases: [unknown, string][] = [
  [{ toolCalls: [null] }, "response 0: toolCalls[0] must be an object, got null"],
  [
    { toolCalls: [{ id: "a", name: 5 }] },
    "response 0: toolCalls[0].name must be a string, got number",
  ],
  [{ toolCalls: [{ name: "t" }] }, "response 0: toolCalls[0].id must be a string, got undefined"],
  [{ content: 5 }, "response 0: content must be a string, a list of parts or null, got number"],
  [
    { toolCalls: [{ id: "a", name: "t", arguments: 7 }] },
    "response 0: toolCalls[0].arguments must be an object, got number",
  ],
  [
    { toolCalls: [{ id: "a", name: "t", arguments: "{}" }] },
    "response 0: toolCalls[0].arguments must be an object, got string",
  ],
  [{ usage: "x" }, "response 0: usage must be an object, got string"],
  [
    { text: "hi" },
    'response 0: unknown field "text"; a response has content, refusal, toolCalls, reasoning, finishReason, usage, model, raw, responseMetadata',
  ],
  [
    { toolCalls: [{ id: "a", name: "t", args: {} }] },
    'response 0: toolCalls[0] has an unknown field "args"; a tool call has id, name, arguments, argumentsError',
  ],
];

describe("ScriptedChat response checks", () => {
  for (const [response, message] of cases) {
    it(`refuses ${JSON.stringify(response)}`, async () => {
      await expectError(
        () => new ScriptedChat([response as ScriptedResponse]),
        TypeError,
        `ScriptedChat: ${message}`,
      );
    });
  }

  it("refuses a function's malformed result when it is called, naming the response", async () => {
    const chat = new ScriptedChat(["ok", () => ({ content: 5 }) as never]);
    await chat.complete({ messages: [], tools: [], toolChoice: null, outputSchema: null });
    await expectError(
      () => chat.complete({ messages: [], tools: [], toolChoice: null, outputSchema: null }),
      TypeError,
      "ScriptedChat: response 1: content must be a string, a list of parts or null, got number",
    );
  });

  it("refuses tool arguments nested past the JSON limit", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    await expectError(
      () => new ScriptedChat([{ toolCalls: [{ id: "c", name: "t", arguments: deep as never }] }]),
      TypeError,
      "ScriptedChat: response 0: toolCalls[0].arguments is nested deeper than the JSON limit (MAX_JSON_DEPTH)",
    );
  });
});
