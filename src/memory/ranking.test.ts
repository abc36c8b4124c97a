import { describe, expect, it } from "vitest";
import { byScore, byScoreUtf8, byUtf8, type Ranked, TopK, takePage } from "./ranking.js";

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

describe("byUtf8", () => {
  it("orders strings as their UTF-8 bytes (code points): above U+FFFF after U+E000 to U+FFFF", () => {
    const words = [
      "b",
      "a\u{10000}",
      "a\uFFFF",
      "a\uE000",
      "a\uD7FF",
      "a",
      "ab",
      "a\u{1F600}x",
      "",
    ];
    const bytes = (s: string) => [...Buffer.from(s, "utf8")];
    const byBytes = [...words].sort((x, y) => {
      const [a, b] = [bytes(x), bytes(y)];
      for (let i = 0; i < Math.min(a.length, b.length); i++)
        if (a[i] !== b[i]) return a[i]! - b[i]!;
      return a.length - b.length;
    });
    expect([...words].sort(byUtf8)).toEqual(byBytes);
    expect(byBytes).toEqual([
      "",
      "a",
      "ab",
      "a\uD7FF",
      "a\uE000",
      "a\uFFFF",
      "a\u{10000}",
      "a\u{1F600}x",
      "b",
    ]);
    // JavaScript's own order puts the surrogate pairs before U+E000.
    expect([...words].sort()).toEqual([
      "",
      "a",
      "ab",
      "a\uD7FF",
      "a\u{10000}",
      "a\u{1F600}x",
      "a\uE000",
      "a\uFFFF",
      "b",
    ]);
    expect(byUtf8("x", "x")).toBe(0);
  });

  it("TopK keeps ties in that order when given byScoreUtf8", () => {
    const top = new TopK<Ranked>(3, byScoreUtf8);
    for (const key of ["a\u{10000}", "a\uE000", "b", "a"]) top.push({ ns: "n", key, score: 0.5 });
    expect(top.sorted().map((r) => r.key)).toEqual(["a", "a\uE000", "a\u{10000}"]);
    const js = new TopK<Ranked>(3);
    for (const key of ["a\u{10000}", "a\uE000", "b", "a"]) js.push({ ns: "n", key, score: 0.5 });
    expect(js.sorted().map((r) => r.key)).toEqual(["a", "a\u{10000}", "a\uE000"]);
  });
});
