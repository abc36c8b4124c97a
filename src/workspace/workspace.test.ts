import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, expectError } from "../../test/helpers.js";
import { WorkspaceError } from "../errors/index.js";
import { DirectoryWorkspace } from "./directory.js";
import { MemoryWorkspace } from "./memory.js";
import { normalizePath } from "./paths.js";
import { isWorkspace, type Workspace } from "./types.js";

async function refused(
  fn: () => unknown,
  reason: WorkspaceError["reason"],
  message: string,
): Promise<WorkspaceError> {
  const e = await expectError(fn, WorkspaceError, message);
  expect(e.reason).toBe(reason);
  return e;
}

let base: string;
let root: string;
let outsideDir: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "nodestep-ws-"));
  root = join(base, "root");
  outsideDir = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outsideDir);
  writeFileSync(join(outsideDir, "secret.txt"), "top secret");
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const makers: Array<[string, () => Workspace]> = [
  ["MemoryWorkspace", () => new MemoryWorkspace()],
  ["DirectoryWorkspace", () => new DirectoryWorkspace(root)],
];

describe.each(makers)("%s", (_name, make) => {
  it("writes, reads, lists (recursive, sorted) and deletes files", async () => {
    const ws = make();
    expect(isWorkspace(ws)).toBe(true);
    await ws.writeFile("notes/b.md", "B");
    await ws.writeFile("./notes//a.md", "A é");
    await ws.writeFile("Z.txt", "z");
    await ws.writeFile("notes/deep/c.md", "C");
    expect(await ws.readFile("notes/a.md")).toBe("A é");
    expect(await ws.list()).toEqual(["Z.txt", "notes/a.md", "notes/b.md", "notes/deep/c.md"]);
    expect(await ws.list("notes/deep")).toEqual(["notes/deep/c.md"]);
    await ws.writeFile("notes/a.md", "replaced");
    expect(await ws.readFile("notes/a.md")).toBe("replaced");
    await ws.delete("notes/b.md");
    expect(await ws.list("notes")).toEqual(["notes/a.md", "notes/deep/c.md"]);
  });

  it("says not-found, is-a-directory and not-a-directory", async () => {
    const ws = make();
    await ws.writeFile("dir/file.txt", "x");
    const nf = await caught(() => ws.readFile("nope.txt"));
    expect((nf as WorkspaceError).reason).toBe("not-found");
    expect(((await caught(() => ws.delete("nope.txt"))) as WorkspaceError).reason).toBe(
      "not-found",
    );
    expect(((await caught(() => ws.list("nope"))) as WorkspaceError).reason).toBe("not-found");
    expect(((await caught(() => ws.readFile("dir"))) as WorkspaceError).reason).toBe(
      "is-a-directory",
    );
    expect(((await caught(() => ws.writeFile("dir", "x"))) as WorkspaceError).reason).toBe(
      "is-a-directory",
    );
    expect(((await caught(() => ws.delete("dir"))) as WorkspaceError).reason).toBe(
      "is-a-directory",
    );
    expect(((await caught(() => ws.list("dir/file.txt"))) as WorkspaceError).reason).toBe(
      "not-a-directory",
    );
    expect(
      ((await caught(() => ws.writeFile("dir/file.txt/x", "x"))) as WorkspaceError).reason,
    ).toBe("not-a-directory");
    expect(await ws.readFile("dir/file.txt")).toBe("x");
  });

  it("refuses a path with a .. segment", async () => {
    const ws = make();
    const e = await refused(
      () => ws.writeFile("../outside/pwned.txt", "x"),
      "parent-segment",
      'Workspace writeFile refused path "../outside/pwned.txt": it contains a ".." segment, which leads out',
    );
    expect(e.path).toBe("../outside/pwned.txt");
    await refused(
      () => ws.readFile("a/../../outside/secret.txt"),
      "parent-segment",
      'Workspace readFile refused path "a/../../outside/secret.txt": it contains a ".." segment, which leads out',
    );
    await refused(
      () => ws.list(".."),
      "parent-segment",
      'Workspace list refused path "..": it contains a ".." segment, which leads out',
    );
    expect(existsSync(join(outsideDir, "pwned.txt"))).toBe(false);
  });

  it("refuses an absolute path", async () => {
    const ws = make();
    await refused(
      () => ws.readFile(join(outsideDir, "secret.txt")),
      "absolute-path",
      `Workspace readFile refused path ${JSON.stringify(join(outsideDir, "secret.txt"))}: paths are relative to the workspace root, with / separators`,
    );
    await refused(
      () => ws.writeFile("C:/Windows/x.txt", "x"),
      "absolute-path",
      'Workspace writeFile refused path "C:/Windows/x.txt": paths are relative to the workspace root, with / separators',
    );
  });

  it("refuses a NUL byte", async () => {
    const ws = make();
    await refused(
      () => ws.writeFile("a\u0000.txt", "x"),
      "nul-byte",
      'Workspace writeFile refused path "a\\u0000.txt": it contains a NUL byte',
    );
  });

  it("refuses a name over 255 bytes (counted in UTF-8)", async () => {
    const ws = make();
    await ws.writeFile("a".repeat(255), "max");
    expect(await ws.readFile("a".repeat(255))).toBe("max");
    const e = await caught(() => ws.writeFile(`d/${"é".repeat(128)}`, "x"));
    expect(e).toBeInstanceOf(WorkspaceError);
    expect((e as WorkspaceError).reason).toBe("name-too-long");
    expect(e.message).toMatch(/: the name ".*\.\.\." is 256 bytes long; at most 255 are allowed$/);
  });

  it("refuses a path over 4096 bytes", async () => {
    const ws = make();
    const long = `${"abcdefghi/".repeat(410)}x`;
    await refused(
      () => ws.readFile(long),
      "path-too-long",
      `Workspace readFile refused path ${JSON.stringify(`${long.slice(0, 77)}...`)}: it is 4101 bytes long; at most 4096 are allowed`,
    );
  });

  it("refuses a backslash and an empty path", async () => {
    const ws = make();
    await refused(
      () => ws.writeFile("a\\b.txt", "x"),
      "invalid-path",
      'Workspace writeFile refused path "a\\\\b.txt": it contains a backslash; separate directories with /',
    );
    await refused(
      () => ws.readFile("./"),
      "invalid-path",
      'Workspace readFile refused path "./": it names no file',
    );
    expect(await ws.list("")).toEqual([]);
  });

  it("refuses a text that is not a string and a path that is not a string", async () => {
    const ws = make();
    await expectError(
      () => ws.writeFile("a.txt", 5 as unknown as string),
      TypeError,
      'Workspace writeFile: the text of "a.txt" must be a string, got number',
    );
    await expectError(
      () => ws.readFile(null as unknown as string),
      TypeError,
      "Workspace readFile: path must be a string, got null",
    );
  });
});

describe("MemoryWorkspace", () => {
  it("starts with the given files and gives them back as JSON", async () => {
    const ws = new MemoryWorkspace({ "b.md": "B", "a/x.md": "X" });
    expect(ws.toJSON()).toEqual({ "a/x.md": "X", "b.md": "B" });
    expect(Object.keys(ws.toJSON())).toEqual(["a/x.md", "b.md"]);
    await ws.delete("a/x.md");
    expect(((await caught(() => ws.list("a"))) as WorkspaceError).reason).toBe("not-found");
  });
});

describe("DirectoryWorkspace", () => {
  it("writes real files under the root", async () => {
    const ws = new DirectoryWorkspace(root);
    await ws.writeFile("notes/a.md", "hello");
    expect(readFileSync(join(root, "notes/a.md"), "utf8")).toBe("hello");
    await ws.writeFile("notes/a.md", "hi");
    expect(readFileSync(join(root, "notes/a.md"), "utf8")).toBe("hi");
  });

  it("refuses to read through a directory link that points out", async () => {
    symlinkSync(outsideDir, join(root, "out"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.readFile("out/secret.txt"),
      "outside-root",
      'Workspace readFile "out/secret.txt": a symbolic link leads outside the workspace root',
    );
    await refused(
      () => ws.list("out"),
      "outside-root",
      'Workspace list "out": a symbolic link leads outside the workspace root',
    );
  });

  it("refuses to write through a directory link that points out, creating nothing outside", async () => {
    symlinkSync(outsideDir, join(root, "out"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.writeFile("out/new/pwned.txt", "x"),
      "outside-root",
      'Workspace writeFile "out/new/pwned.txt": a symbolic link leads outside the workspace root',
    );
    expect(existsSync(join(outsideDir, "new"))).toBe(false);
    await refused(
      () => ws.writeFile("out/pwned.txt", "x"),
      "outside-root",
      'Workspace writeFile "out/pwned.txt": a symbolic link leads outside the workspace root',
    );
    expect(existsSync(join(outsideDir, "pwned.txt"))).toBe(false);
  });

  it("refuses to delete through a directory link that points out", async () => {
    symlinkSync(outsideDir, join(root, "out"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.delete("out/secret.txt"),
      "outside-root",
      'Workspace delete "out/secret.txt": a symbolic link leads outside the workspace root',
    );
    expect(readFileSync(join(outsideDir, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses to read or write through a file link that points out; delete removes only the link", async () => {
    symlinkSync(join(outsideDir, "secret.txt"), join(root, "pw"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.readFile("pw"),
      "outside-root",
      'Workspace readFile "pw": a symbolic link leads outside the workspace root',
    );
    await refused(
      () => ws.writeFile("pw", "overwritten"),
      "outside-root",
      'Workspace writeFile "pw": a symbolic link leads outside the workspace root',
    );
    expect(readFileSync(join(outsideDir, "secret.txt"), "utf8")).toBe("top secret");
    expect(await ws.list()).toEqual([]);
    await ws.delete("pw");
    expect(existsSync(join(root, "pw"))).toBe(false);
    expect(readFileSync(join(outsideDir, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses a link two hops away that ends outside", async () => {
    symlinkSync(join(outsideDir, "secret.txt"), join(root, "hop2"));
    symlinkSync(join(root, "hop2"), join(root, "hop1"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.readFile("hop1"),
      "outside-root",
      'Workspace readFile "hop1": a symbolic link leads outside the workspace root',
    );
  });

  it("follows links that stay inside the root", async () => {
    mkdirSync(join(root, "real"));
    writeFileSync(join(root, "real/a.txt"), "A");
    symlinkSync(join(root, "real"), join(root, "alias"));
    symlinkSync(join(root, "real/a.txt"), join(root, "a-link"));
    const ws = new DirectoryWorkspace(root);
    expect(await ws.readFile("alias/a.txt")).toBe("A");
    expect(await ws.readFile("a-link")).toBe("A");
    await ws.writeFile("a-link", "via link");
    expect(readFileSync(join(root, "real/a.txt"), "utf8")).toBe("via link");
    await ws.writeFile("alias/new/b.txt", "B");
    expect(readFileSync(join(root, "real/new/b.txt"), "utf8")).toBe("B");
    // linked directories are not walked; a linked file inside the root is listed
    expect(await ws.list()).toEqual(["a-link", "real/a.txt", "real/new/b.txt"]);
    expect(await ws.list("alias")).toEqual(["alias/a.txt", "alias/new/b.txt"]);
  });

  it("refuses to write through a link to nothing", async () => {
    symlinkSync(join(root, "missing.txt"), join(root, "dangling"));
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.writeFile("dangling", "x"),
      "broken-link",
      'Workspace writeFile "dangling": it is a symbolic link to nothing',
    );
    expect(existsSync(join(root, "missing.txt"))).toBe(false);
  });

  it("refuses a named pipe instead of hanging on it", async () => {
    execFileSync("mkfifo", [join(root, "pipe")]);
    const ws = new DirectoryWorkspace(root);
    await refused(
      () => ws.readFile("pipe"),
      "not-a-file",
      'Workspace readFile "pipe": it is not a regular file',
    );
    await refused(
      () => ws.writeFile("pipe", "x"),
      "not-a-file",
      'Workspace writeFile "pipe": it is not a regular file',
    );
  });

  it("says when the root does not exist", async () => {
    const ws = new DirectoryWorkspace(join(base, "missing"));
    const e = await refused(
      () => ws.readFile("a.txt"),
      "not-found",
      `Workspace readFile "a.txt": the workspace root ${JSON.stringify(join(base, "missing"))} does not exist or cannot be read`,
    );
    expect(e.path).toBe("a.txt");
    expect(() => new DirectoryWorkspace("")).toThrow(
      "new DirectoryWorkspace(root): root must be a non-empty directory path",
    );
  });
});

describe("normalizePath", () => {
  it("drops empty and . segments", () => {
    expect(normalizePath("./a//b/./c.md")).toBe("a/b/c.md");
    expect(normalizePath("")).toBe("");
  });
});
