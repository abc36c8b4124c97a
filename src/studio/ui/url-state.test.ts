import { describe, expect, it } from "vitest";
import { locationFor, readLocation } from "./url-state.ts";

describe("the thread and branch in the address", () => {
  it("reads them, main without a branch, nothing without a thread", () => {
    expect(readLocation("?thread=t-1&branch=try-again")).toEqual({
      threadId: "t-1",
      branchId: "try-again",
    });
    expect(readLocation("?thread=t-1")).toEqual({ threadId: "t-1", branchId: "main" });
    expect(readLocation("")).toEqual({ threadId: null, branchId: "main" });
    expect(readLocation("?branch=alt&thread=")).toEqual({ threadId: null, branchId: "main" });
    expect(readLocation("?thread=a%20b%2Fc&branch=x%26y")).toEqual({
      threadId: "a b/c",
      branchId: "x&y",
    });
  });

  it("writes them, keeping other parameters; without a thread, neither", () => {
    expect(locationFor("", "t-1", "main")).toBe("?thread=t-1&branch=main");
    expect(locationFor("?x=1&thread=old&branch=b", "t-2", "alt")).toBe(
      "?x=1&thread=t-2&branch=alt",
    );
    expect(locationFor("?thread=t-1&branch=main", null, "main")).toBe("");
    expect(locationFor("?x=1&thread=t-1", null, "main")).toBe("?x=1");
    expect(locationFor("", "a b/c", "x&y")).toBe("?thread=a+b%2Fc&branch=x%26y");
    const written = locationFor("", "a b/c", "x&y");
    expect(readLocation(written)).toEqual({ threadId: "a b/c", branchId: "x&y" });
  });
});
