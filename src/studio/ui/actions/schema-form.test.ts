import { describe, expect, it } from "vitest";
import { inferSchema } from "./schema-form.tsx";

describe("inferSchema", () => {
  it("reads a type per property from the value", () => {
    expect(inferSchema({ a: "x", n: 1, b: true, list: [1], o: { z: null } })).toEqual({
      type: "object",
      properties: {
        a: { type: "string" },
        n: { type: "number" },
        b: { type: "boolean" },
        list: { type: "array" },
        o: { type: "object", properties: { z: {} } },
      },
    });
  });
});
