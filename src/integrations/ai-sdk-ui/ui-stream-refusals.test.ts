import { describe, expect, it } from "vitest";
import { ValueError } from "../../errors/index.js";
import { uiChatTurn } from "./index.js";
import { userMessage } from "./ui-stream.fixture.js";

describe("uiChatTurn refuses what it cannot run", () => {
  const cases: [string, unknown, string][] = [
    [
      "not an object",
      "hi",
      "useChat request: body: Invalid input: expected object, received string",
    ],
    [
      "no messages",
      { id: "t", messages: [] },
      "useChat request: messages: Too small: expected array to have >=1 items",
    ],
    [
      "a bad role",
      { messages: [{ id: "x", role: "bot", parts: [] }] },
      'useChat request: messages.0.role: Invalid option: expected one of "system"|"user"|"assistant"',
    ],
    [
      "regenerate",
      { messages: [userMessage], trigger: "regenerate-message" },
      'useChat request: trigger "regenerate-message" is not supported; fork the thread to answer again',
    ],
    [
      "an empty user message",
      { messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "" }] }] },
      "useChat request: messages.0 has no text or file part",
    ],
    [
      "an assistant message with no answer",
      {
        messages: [
          userMessage,
          { id: "a", role: "assistant", parts: [{ type: "text", text: "x" }] },
        ],
      },
      "useChat request: messages.1: the last message is an assistant message with no approval answer to send",
    ],
  ];
  for (const [name, body, message] of cases) {
    it(name, () => {
      let caught: unknown;
      try {
        uiChatTurn(body);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ValueError);
      expect((caught as Error).message).toBe(message);
    });
  }

  it("maps file parts to image and file parts", () => {
    const turn = uiChatTurn({
      messages: [
        {
          id: "u",
          role: "user",
          parts: [
            { type: "text", text: "See" },
            { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAA" },
            {
              type: "file",
              mediaType: "application/pdf",
              url: "https://x/y.pdf",
              filename: "y.pdf",
            },
          ],
        },
      ],
    });
    expect(turn.input).toEqual({
      messages: [
        {
          type: "human",
          id: "u",
          content: [
            { type: "text", text: "See" },
            { type: "image", url: "data:image/png;base64,AAA", mediaType: "image/png" },
            { type: "file", url: "https://x/y.pdf", mediaType: "application/pdf", name: "y.pdf" },
          ],
        },
      ],
    });
  });
});
