import { describe, expect, it } from "vitest";
import { byScore, type Ranked, TopK, takePage } from "./ranking.js";

describe("TopK", () => {
  it("keeps the same best k as a full sort, ties by namespace and key, for every k", () => {
    let x = 12345;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x;
    };
    // Scores from a small set, so that many tie.
    const all: Ranked[] = Array.from({ length: 500 }, (_, i) => ({
      ns: `n${next() % 7}\u001f`,
      key: `k${i}`,
      score: (next() % 20) / 10 - 1,
    }));
    const sorted = [...all].sort(byScore);
    for (const k of [1, 2, 3, 10, 37, 499, 500, 600]) {
      const top = new TopK<Ranked>(k);
      for (const c of all) if (top.admits(c.score, c.ns, c.key)) top.push(c);
      expect(top.size).toBe(Math.min(k, all.length));
      expect(top.sorted()).toEqual(sorted.slice(0, k));
    }
  });

  it("pages past items that fail the filter or are gone", () => {
    const items = ["a", "b", "gone", "c", "d"].map((key, i) => ({ key, n: i }));
    const page = takePage(
      items,
      (c) =>
        c.key === "gone"
          ? null
          : {
              namespace: ["x"],
              key: c.key,
              value: { n: c.n },
              createdAt: 0,
              updatedAt: 0,
              expiresAt: null,
            },
      (c) => c.n / 10,
      (v) => v.n !== 1,
      1,
      2,
    );
    expect(page.map((i) => [i.key, i.score])).toEqual([
      ["c", 0.3],
      ["d", 0.4],
    ]);
  });
});
