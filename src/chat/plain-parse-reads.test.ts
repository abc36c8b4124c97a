/**
 * The plain parse reads a value as zod reads it: each key as many times (a getter that answers
 * otherwise on a second read, or a Proxy, cannot tell them apart), and `constructor` of a
 * record, which zod's plain-object check reads.
 */
import { describe, expect, it } from "vitest";
import { messagesUpdateSchema } from "../state/add-messages.js";
import { lastParseWasPlain, safeParseTwin } from "../zod-cycles.js";
import { ai, call, check, hidden, type Obj, toolCallsSchema } from "./plain-parse.fixture.js";

describe("the plain parse reads as zod reads", () => {
  it("leaves to zod a message whose type reads differently each time", () => {
    // zod reads `type` twice (the discriminated union, then the option's literal): it refuses.
    let reads = 0;
    const flip = (): object =>
      Object.defineProperty({ id: null, content: "c" }, "type", {
        get: () => (reads++ % 2 === 0 ? "human" : "system"),
        enumerable: true,
      });
    expect(messagesUpdateSchema().safeParse(flip()).success).toBe(false);
    expect(check(messagesUpdateSchema(), flip())).toBe("zod");
    expect(check(messagesUpdateSchema(), [flip()])).toBe("zod");
  });

  it("leaves to zod a record whose constructor zod's plain-object check refuses", () => {
    // zod's record reads `constructor` (its isPlainObject); a non-enumerable own one, or one a
    // Proxy answers, is not met by Object.keys.
    const records = (): object[] => [
      hidden({ q: 1 }, "constructor", class Args {}),
      hidden({ q: 1 }, "constructor", () => {}),
      new Proxy(
        { q: 1 },
        { get: (t, k) => (k === "constructor" ? class Args {} : Reflect.get(t, k)) },
      ),
    ];
    for (const r of records())
      expect(toolCallsSchema().safeParse([call({ arguments: r })]).success).toBe(false);
    for (const r of records()) {
      expect(check(toolCallsSchema(), [call({ arguments: r })])).toBe("zod");
    }
    for (const r of records()) {
      expect(check(messagesUpdateSchema(), ai({ toolCalls: [call({ arguments: r })] }))).toBe(
        "zod",
      );
    }
    for (const r of records())
      expect(check(messagesUpdateSchema(), ai({ responseMetadata: r }))).toBe("zod");
    for (const r of records()) {
      expect(check(messagesUpdateSchema(), { type: "tool", content: "x", arguments: r })).toBe(
        "zod",
      );
    }
  });

  it("reads each key of a value as many times as zod does (a getter sees the same reads)", () => {
    /** `v` behind Proxies that count the reads of each key it has, by path. */
    const counted = (v: unknown, reads: Map<string, number>, path: string): unknown => {
      if (v === null || typeof v !== "object") return v;
      const inner = (Array.isArray(v) ? [] : {}) as Obj;
      for (const k of Object.keys(v)) inner[k] = counted((v as Obj)[k], reads, `${path}.${k}`);
      return new Proxy(inner, {
        get(t, k, r) {
          if (typeof k === "string" && Object.hasOwn(t, k) && !Array.isArray(t)) {
            reads.set(`${path}.${k}`, (reads.get(`${path}.${k}`) ?? 0) + 1);
          }
          return Reflect.get(t, k, r);
        },
      });
    };
    const turn = [
      ai({
        refusal: null,
        toolCalls: [call({ arguments: { q: 1 }, argumentsError: null })],
        reasoning: [],
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 2 },
        responseMetadata: { a: 1 },
      }),
      { type: "tool", id: "i", content: "x", name: "n", toolCallId: "c", arguments: { a: 1 } },
      { type: "human", id: null, content: "x" },
    ];
    for (const [schema, v] of [
      [messagesUpdateSchema(), turn],
      [toolCallsSchema(), turn[0]!.toolCalls],
    ] as const) {
      const byZod = new Map<string, number>();
      const byPlain = new Map<string, number>();
      expect(schema.safeParse(counted(v, byZod, "v")).success).toBe(true);
      safeParseTwin(schema, counted(v, byPlain, "v"));
      expect(lastParseWasPlain()).toBe(true);
      expect(Object.fromEntries(byPlain)).toEqual(Object.fromEntries(byZod));
    }
  });
});
