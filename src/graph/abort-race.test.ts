import { describe, expect, it } from "vitest";
import { abortRace } from "./abort-race.js";

describe("abortRace", () => {
  it("passes results and failures through, and rejects every pending race when the signal fires", async () => {
    const c = new AbortController();
    let made = 0;
    const r = abortRace(c.signal, () => new Error(`cancelled ${++made}`));
    expect(await r.race(Promise.resolve(1))).toBe(1);
    await expect(r.race(Promise.reject(new Error("own")))).rejects.toThrow("own");
    const never = new Promise<number>(() => {});
    const a = r.race(never);
    const b = r.race(never);
    c.abort();
    await expect(a).rejects.toThrow("cancelled 1");
    await expect(b).rejects.toThrow("cancelled 1");
    await expect(r.race(Promise.resolve(2))).rejects.toThrow("cancelled 2");
    expect(made).toBe(2);
  });

  it("after close, the signal firing no longer reaches it", async () => {
    const c = new AbortController();
    let made = 0;
    const r = abortRace(c.signal, () => new Error(`cancelled ${++made}`));
    expect(await r.race(Promise.resolve("x"))).toBe("x");
    r.close();
    c.abort();
    expect(made).toBe(0);
  });
});
