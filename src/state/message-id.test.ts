import { describe, expect, it } from "vitest";
import { newMessageId } from "./add-messages.js";
import { randomId } from "./message-id.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomId", () => {
  it("gives version-4 UUIDs in lower case, each its own, across many pools of random bytes", () => {
    const ids = Array.from({ length: 5000 }, () => randomId());
    const first = ids[0]!;
    for (const id of ids) expect(id).toMatch(V4);
    // Each id is a string of its own (the buffer it is written in is reused).
    expect(ids[0]).toBe(first);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("draws every random digit from all 16 values, and the variant digit from 8, 9, a and b", () => {
    const ids = Array.from({ length: 2000 }, () => randomId().replaceAll("-", ""));
    for (let p = 0; p < 32; p++) {
      const seen = new Set(ids.map((id) => id[p]));
      if (p === 12) expect([...seen]).toEqual(["4"]);
      else if (p === 16) expect([...seen].sort()).toEqual(["8", "9", "a", "b"]);
      else expect(seen.size).toBe(16);
    }
  });

  it("is the message id of addMessages", () => {
    expect(newMessageId()).toMatch(V4);
  });
});
