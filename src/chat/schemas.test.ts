import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { chatSchemas, USAGE_TOKEN_KEYS } from "./schemas.js";

describe("USAGE_TOKEN_KEYS", () => {
  it("are the usage schema's keys but raw, in its order, each an optional number", () => {
    const shape = (chatSchemas().usage as unknown as z.ZodObject).shape;
    expect([...USAGE_TOKEN_KEYS, "raw"]).toEqual(Object.keys(shape));
    for (const k of USAGE_TOKEN_KEYS) {
      expect(shape[k]!.safeParse(3).success, k).toBe(true);
      expect(shape[k]!.safeParse(undefined).success, k).toBe(true);
      expect(shape[k]!.safeParse("3").success, k).toBe(false);
    }
  });
});
