import { describe, expect, it } from "vitest";
import { z } from "zod";
import { messagesUpdateSchema } from "./add-messages.js";
import { issueText } from "./issue-text.js";

const textOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  expect(r.success).toBe(false);
  return issueText(r.error!.issues[0]!, value);
};

describe("issueText", () => {
  it("gives a plain issue as zod says it, with its path", () => {
    expect(textOf(z.object({ a: z.array(z.number()) }), { a: [1, "x"] })).toEqual({
      path: ["a", 1],
      message: "Invalid input: expected number, received string",
    });
  });

  it("for a union that failed on the value's type, names the types expected", () => {
    expect(textOf(messagesUpdateSchema(), 5)).toEqual({
      path: [],
      message: "Invalid input: expected array or object, received number",
    });
    expect(textOf(z.object({ v: z.union([z.string(), z.number()]) }), { v: null })).toEqual({
      path: ["v"],
      message: "Invalid input: expected string or number, received null",
    });
  });

  it("else gives the issue of the alternative that got furthest into the value", () => {
    expect(textOf(messagesUpdateSchema(), [{ role: "user" }])).toEqual({
      path: [0, "type"],
      message: "Invalid discriminator value. Expected 'system' | 'human' | 'ai' | 'tool'",
    });
    expect(textOf(messagesUpdateSchema(), [{ type: "human", content: 5 }])).toEqual({
      path: [0, "content"],
      message: "Invalid input: expected string or array, received number",
    });
  });
});
