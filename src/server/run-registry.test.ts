/**
 * The run buffer reads by index (issue 20, item 4: a 10,000-token run was read by filtering the
 * whole buffer after each write): `since` answers exactly the events after an id, also after
 * the oldest were dropped beyond the limit, and `null` for ids no longer buffered.
 */
import { describe, expect, it } from "vitest";
import { ServerRun } from "./run-registry.js";

function run(limit: number, events: number): ServerRun {
  const r = new ServerRun(
    { threadId: "t", branchId: "main", detached: false },
    limit,
    new AbortController(),
  );
  for (let i = 1; i <= events; i++) r.push("tokens", { i });
  return r;
}

describe("ServerRun.since", () => {
  it("answers the events after an id, in order", () => {
    const r = run(10, 5);
    expect(r.since(0)?.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(r.since(3)).toEqual([
      { id: 4, event: "tokens", data: { i: 4 } },
      { id: 5, event: "tokens", data: { i: 5 } },
    ]);
    expect(r.since(5)).toEqual([]);
  });

  it("keeps the last `limit` events as more come, and refuses ids dropped before them", () => {
    const r = run(4, 25);
    expect(r.firstBufferedId).toBe(22);
    expect(r.lastEventId).toBe(25);
    expect(r.since(21)?.map((e) => e.id)).toEqual([22, 23, 24, 25]);
    expect(r.since(23)?.map((e) => (e.data as { i: number }).i)).toEqual([24, 25]);
    expect(r.since(20)).toBe(null);
    r.push("end", { status: "done" });
    expect(r.since(24)?.map((e) => [e.id, e.event])).toEqual([
      [25, "tokens"],
      [26, "end"],
    ]);
    expect(r.firstBufferedId).toBe(23);
  });
});
