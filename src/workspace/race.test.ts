/**
 * Issue 13, item 10: DirectoryWorkspace holds in a race. A directory inside the root is
 * swapped for a symbolic link to a directory outside it, again and again, while reads,
 * writes, lists and deletes run through it; no call reads, writes or deletes outside, and
 * every failure is a WorkspaceError. (`delete()` removed files outside the root hundreds of
 * times in 10 s.) Runs ~3 s; `NODESTEP_RACE_MS=10000` runs longer. Also: files with more than
 * one hard link are refused unless allowed.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WorkspaceError } from "../errors/index.js";
import { DirectoryWorkspace } from "./directory.js";

const base = mkdtempSync(join(tmpdir(), "nodestep-ws-race-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const RACE_MS = Number(process.env.NODESTEP_RACE_MS ?? 3000);

describe("DirectoryWorkspace in a race of symlink swaps", () => {
  it(`lets nothing escape in ${RACE_MS} ms of swaps`, { timeout: RACE_MS + 30_000 }, async () => {
    const root = join(base, "root");
    const outside = join(base, "outside");
    mkdirSync(root);
    mkdirSync(outside);
    const secret = "outside secret";
    const fill = () => {
      for (let i = 0; i < 20; i++) writeFileSync(join(outside, `f${i}.txt`), secret);
    };
    fill();
    const ws = new DirectoryWorkspace(root);
    const dir = join(root, "d");
    const real = join(root, "d-real");
    const link = join(root, "d-link");
    mkdirSync(real);
    symlinkSync(outside, link);
    renameSync(real, dir);
    let stop = false;
    let swaps = 0;
    // The swapper: `d` is a real directory one moment and a link outside the next.
    const swapper = (async () => {
      let isReal = true;
      while (!stop) {
        try {
          if (isReal) {
            renameSync(dir, real);
            renameSync(link, dir);
          } else {
            renameSync(dir, link);
            renameSync(real, dir);
          }
          isReal = !isReal;
          swaps++;
        } catch {
          // a call made a file or directory in the way: try again
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const errors = new Map<string, number>();
    let leaks = 0;
    const until = Date.now() + RACE_MS;
    let i = 0;
    while (Date.now() < until) {
      const n = i++ % 20;
      const calls: Promise<unknown>[] = [
        ws.readFile(`d/f${n}.txt`).then((t) => {
          if (t === secret) leaks++;
        }),
        ws.writeFile(`d/f${n}.txt`, "inside"),
        ws.list("d"),
        ws.delete(`d/f${(n + 7) % 20}.txt`),
      ];
      for (const r of await Promise.allSettled(calls)) {
        if (r.status === "rejected") {
          const e = r.reason as Error;
          const key =
            e instanceof WorkspaceError ? e.reason : `${e.constructor.name}: ${e.message}`;
          errors.set(key, (errors.get(key) ?? 0) + 1);
        }
      }
    }
    stop = true;
    await swapper;
    expect(swaps).toBeGreaterThan(10);
    // Outside: every file is still there, unchanged.
    expect(readdirSync(outside).sort()).toEqual(
      Array.from({ length: 20 }, (_, k) => `f${k}.txt`).sort(),
    );
    for (const f of readdirSync(outside))
      expect(readFileSync(join(outside, f), "utf8")).toBe(secret);
    expect(leaks).toBe(0);
    // Every failure was a WorkspaceError (its reason is the key), none a raw error.
    const raw = [...errors.keys()].filter((k) => k.includes(":"));
    expect(raw).toEqual([]);
  });
});

describe("DirectoryWorkspace hard links", () => {
  it("refuses a file with more than one hard link unless allowed", async () => {
    const root = join(base, "hl-root");
    mkdirSync(root);
    const out = join(base, "hl-outside.txt");
    writeFileSync(out, "outside");
    linkSync(out, join(root, "h.txt"));
    const ws = new DirectoryWorkspace(root);
    for (const call of [() => ws.readFile("h.txt"), () => ws.writeFile("h.txt", "x")]) {
      const e = await call().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(WorkspaceError);
      expect((e as WorkspaceError).reason).toBe("hard-link");
      expect((e as WorkspaceError).path).toBe("h.txt");
    }
    expect(readFileSync(out, "utf8")).toBe("outside");
    const allowing = new DirectoryWorkspace(root, { allowHardLinks: true });
    expect(await allowing.readFile("h.txt")).toBe("outside");
    // Deleting removes only the name inside the root.
    await ws.delete("h.txt");
    expect(readFileSync(out, "utf8")).toBe("outside");
  });
});
