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
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
};
/** `nodestep`, `nodestep/sqlite`, … → the dist file the export map names. */
const subpaths = new Map(
  Object.entries(pkg.exports)
    .filter(([key]) => key !== "./package.json")
    .map(([key, target]) => [
      `nodestep${key.slice(1)}`,
      typeof target === "string" ? target : target.default,
    ]),
);

/** The import statements of a page's code blocks: specifier and the value names imported. */
function importsOf(text: string): { spec: string; names: string[] }[] {
  const blocks = [...text.matchAll(/```(?:ts|js|typescript|javascript)\n([\s\S]*?)```/g)].map(
    (m) => m[1]!,
  );
  return blocks.flatMap((code) =>
    [...code.matchAll(/import\s+(type\s+)?(?:\{([^}]*)\}|[\w*\s]+?)\s*from\s*"([^"]+)"/g)].map(
      (m) => ({
        spec: m[3]!,
        names:
          m[1] || !m[2]
            ? []
            : m[2]
                .split(",")
                .map((n) => n.trim())
                .filter((n) => n !== "" && !n.startsWith("type "))
                .map((n) => n.split(/\s+as\s+/)[0]!),
      }),
    ),
  );
}

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

/**
 * GitHub's anchor of a heading (github-slugger): the heading's text (link targets, backticks
 * and emphasis marks left out), lower-cased, every character other than a letter, a mark, a
 * digit, `_`, `-` or a space removed, spaces made `-`; a repeated slug gets `-1`, `-2`, ….
 */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors of a page: its headings' slugs (outside code blocks) and `id`/`name` attributes. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      if (fence === null) fence = f[1]!;
      else if (f[1] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = githubSlug(h[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

describe("documentation anchors", () => {
  it("slugs headings as GitHub does", () => {
    expect(githubSlug("`useChat({ resume: true })`")).toBe("usechat-resume-true-");
    expect(githubSlug("Resuming a useChat stream")).toBe("resuming-a-usechat-stream");
    expect(githubSlug("Runs on workers: what a client sees")).toBe(
      "runs-on-workers-what-a-client-sees",
    );
    expect(githubSlug("`interrupt()` and `Command({ resume })`")).toBe(
      "interrupt-and-command-resume-",
    );
    expect(githubSlug("See [workers](workers.md) & more_things")).toBe("see-workers--more_things");
    expect([...anchorsOf("# A\n## A\n```\n## B\n```\n## A")]).toEqual(["a", "a-1", "a-2"]);
  });

  for (const page of pages) {
    it(`every #anchor of a link in ${page} is a heading of the page it leads to`, () => {
      const text = readFileSync(join(root, page), "utf8");
      const broken = [...text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)]
        .filter((m) => !/^[a-z]+:/i.test(m[1]!))
        .filter((m) => m[1] === "" || m[1]!.endsWith(".md"))
        .filter((m) => {
          const target = m[1] === "" ? join(root, page) : join(root, dirname(page), m[1]!);
          if (!existsSync(target)) return false; // reported by the link test above
          return !anchorsOf(readFileSync(target, "utf8")).has(decodeURIComponent(m[2]!));
        })
        .map((m) => `${m[1]}#${m[2]}`);
      expect(broken).toEqual([]);
    });
  }
});

describe("documentation imports", () => {
  for (const page of pages) {
    it(`${page} imports nodestep only from subpaths of the export map, and what it imports is exported`, async () => {
      const imports = importsOf(readFileSync(join(root, page), "utf8"));
      expect(imports.filter((i) => /(^|\/)src\//.test(i.spec)).map((i) => i.spec)).toEqual([]);
      const own = imports.filter((i) => i.spec === "nodestep" || i.spec.startsWith("nodestep/"));
      expect(own.map((i) => i.spec).filter((s) => !subpaths.has(s))).toEqual([]);
      const missing: string[] = [];
      for (const { spec, names } of own) {
        const mod = (await import(spec)) as Record<string, unknown>;
        for (const name of names) if (!(name in mod)) missing.push(`${name} from ${spec}`);
      }
      expect(missing).toEqual([]);
    });
  }

  it("the README's module table lists every subpath", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Modules"));
    const listed = new Set([...table.matchAll(/`(nodestep(?:\/[\w-]+)?)`/g)].map((m) => m[1]!));
    expect([...subpaths.keys()].filter((s) => !listed.has(s))).toEqual([]);
  });

  it("tsconfig.json maps every subpath to the source of its dist file (for tsc, tsx and vitest)", () => {
    const tsconfig = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")) as {
      compilerOptions: { paths: Record<string, string[]> };
    };
    const expected = Object.fromEntries(
      [...subpaths].map(([name, dist]) => [
        name,
        [dist.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts")],
      ]),
    );
    expect(tsconfig.compilerOptions.paths).toEqual(expected);
    for (const [file] of Object.values(expected)) expect(existsSync(join(root, file!))).toBe(true);
  });
});
