import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { chatSchemas } from "./schemas.js";
import { USAGE_NUMBER_KEYS } from "./usage-keys.js";

describe("USAGE_NUMBER_KEYS", () => {
  it("are the number keys of the usage schema, in its order", () => {
    const shape = (chatSchemas().usage as unknown as z.ZodObject).shape;
    expect([...USAGE_NUMBER_KEYS, "raw"]).toEqual(Object.keys(shape));
  });
});
