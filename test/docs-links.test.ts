import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("documentation links", () => {
  for (const page of pages) {
    it(`every relative link of ${page} leads to a file`, () => {
      const text = readFileSync(join(root, page), "utf8");
      const broken = [...text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((href) => !/^[a-z]+:/i.test(href))
        .filter((href) => !existsSync(join(root, dirname(page), href)));
      expect(broken).toEqual([]);
    });
  }
});
