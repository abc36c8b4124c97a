import { describe, expect, it } from "vitest";
import { expectError } from "../../../test/helpers.js";
import { ValueError } from "../../errors/index.js";
import { uiChatTurn } from "./request.js";

const responded = (toolCallId: string, id: string, approved: boolean) => ({
  type: "tool-refund",
  toolCallId,
  state: "approval-responded",
  approval: { id, approved },
});

describe("uiChatTurn: approval ids that are prototype keys", () => {
  it("refuses an approval id __proto__, constructor or prototype, naming the part", async () => {
    for (const id of ["__proto__", "constructor", "prototype"]) {
      await expectError(
        () =>
          uiChatTurn({
            messages: [
              {
                id: "m1",
                role: "assistant",
                parts: [responded("c1", "k1", false), responded("c2", id, true)],
              },
            ],
          }),
        ValueError,
        `useChat request: messages.0.parts.1.approval.id: "${id}" is not accepted as an interrupt key`,
      );
    }
  });

  it("keeps ordinary approval ids as own answers with a plain prototype", () => {
    const turn = uiChatTurn({
      messages: [{ id: "m1", role: "assistant", parts: [responded("c1", "k1", false)] }],
    });
    expect(turn).toEqual({
      threadId: null,
      input: null,
      resume: { k1: { approved: false } },
      messageId: "m1",
    });
    expect(Object.getPrototypeOf(turn.resume)).toBe(Object.prototype);
  });
});
