import { describe, expect, it } from "vitest";
import { abortRace, WatchedAbort } from "./abort-race.js";

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

  it("on a WatchedAbort's own signal, is told by the source (no listener on the signal), after the signal's listeners", async () => {
    const source = new WatchedAbort();
    const added: string[] = [];
    const add = source.signal.addEventListener.bind(source.signal);
    source.signal.addEventListener = (...args: Parameters<AbortSignal["addEventListener"]>) => {
      added.push(args[0]);
      add(...args);
    };
    const order: string[] = [];
    const r = abortRace(
      source.signal,
      () => {
        order.push(`cancelled: ${String(source.signal.reason)}`);
        return new Error("cancelled");
      },
      source,
    );
    expect(await r.race(Promise.resolve(1))).toBe(1);
    const a = r.race(new Promise<number>(() => {}));
    source.signal.addEventListener("abort", () => order.push("listener"));
    expect(added).toEqual(["abort"]);
    source.abort("gone");
    expect(order).toEqual(["listener", "cancelled: gone"]);
    await expect(a).rejects.toThrow("cancelled");
    await expect(r.race(Promise.resolve(2))).rejects.toThrow("cancelled");
    expect(order).toEqual(["listener", "cancelled: gone", "cancelled: gone"]);
  });

  it("on a WatchedAbort's signal, after close the source no longer tells it; another signal is listened to", async () => {
    const source = new WatchedAbort();
    let made = 0;
    const r = abortRace(source.signal, () => new Error(`cancelled ${++made}`), source);
    expect(await r.race(Promise.resolve("x"))).toBe("x");
    r.close();
    source.abort("gone");
    expect(made).toBe(0);
    const other = new AbortController();
    const r2 = abortRace(other.signal, () => new Error(`other ${++made}`), new WatchedAbort());
    const b = r2.race(new Promise<number>(() => {}));
    other.abort();
    await expect(b).rejects.toThrow("other 1");
  });
});
