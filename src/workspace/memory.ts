/**
 * `MemoryWorkspace`: a workspace kept in memory.
 *
 * @module
 */
import { WorkspaceError } from "../errors/index.js";
import { pathSegments, quotePath } from "./paths.js";
import type { Workspace } from "./types.js";

/**
 * A {@link Workspace} kept in a map in memory: for tests, examples and runs that need no disk.
 *
 * Directories exist only through the files in them: writing `"a/b.md"` makes `"a"` a directory,
 * and deleting its last file makes it disappear. A path cannot be both a file and a directory
 * (`"is-a-directory"`, `"not-a-directory"`). Paths are checked as on disk (see
 * {@link Workspace}). The files live as long as the object; they are not stored with threads.
 *
 * @example
 * ```ts
 * const ws = new MemoryWorkspace({ "README.md": "# Shop\n" });
 * await ws.writeFile("notes/plan.md", "1. read\n");
 * await ws.list(); // ["README.md", "notes/plan.md"]
 * ws.toJSON();     // { "README.md": "# Shop\n", "notes/plan.md": "1. read\n" }
 * ```
 */
export class MemoryWorkspace implements Workspace {
  readonly #files = new Map<string, string>();

  /**
   * @param files - initial files: path → text.
   * @throws TypeError for a text that is not a string; WorkspaceError for a refused path.
   */
  constructor(files: Readonly<Record<string, string>> = {}) {
    for (const [path, text] of Object.entries(files)) this.#write(path, text, "constructor");
  }

  async readFile(path: string): Promise<string> {
    const p = pathSegments(path, "readFile", false).join("/");
    const text = this.#files.get(p);
    if (text !== undefined) return text;
    if (this.#isDir(p)) throw fail("readFile", path, "is-a-directory", "it is a directory");
    throw fail("readFile", path, "not-found", "no such file");
  }

  async writeFile(path: string, text: string): Promise<void> {
    this.#write(path, text, "writeFile");
  }

  async list(dir = ""): Promise<string[]> {
    const d = pathSegments(dir, "list", true).join("/");
    if (d !== "" && this.#files.has(d)) {
      throw fail("list", dir, "not-a-directory", "it is a file");
    }
    const prefix = d === "" ? "" : `${d}/`;
    const out = [...this.#files.keys()].filter((p) => p.startsWith(prefix));
    if (d !== "" && out.length === 0) throw fail("list", dir, "not-found", "no such directory");
    return out.sort(byCodeUnit);
  }

  async delete(path: string): Promise<void> {
    const p = pathSegments(path, "delete", false).join("/");
    if (this.#files.delete(p)) return;
    if (this.#isDir(p)) throw fail("delete", path, "is-a-directory", "it is a directory");
    throw fail("delete", path, "not-found", "no such file");
  }

  /** The files as a plain object, path → text, sorted by path. */
  toJSON(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of [...this.#files.keys()].sort(byCodeUnit)) out[p] = this.#files.get(p) as string;
    return out;
  }

  #isDir(p: string): boolean {
    const prefix = `${p}/`;
    for (const k of this.#files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  #write(path: string, text: string, op: string): void {
    const segments = pathSegments(path, op, false);
    if (typeof text !== "string") {
      throw new TypeError(
        `Workspace ${op}: the text of ${quotePath(path)} must be a string, got ${text === null ? "null" : typeof text}`,
      );
    }
    for (let i = 1; i < segments.length; i++) {
      if (this.#files.has(segments.slice(0, i).join("/"))) {
        throw fail(
          op,
          path,
          "not-a-directory",
          `${quotePath(segments.slice(0, i).join("/"))} is a file`,
        );
      }
    }
    const p = segments.join("/");
    if (this.#isDir(p)) throw fail(op, path, "is-a-directory", "it is a directory");
    this.#files.set(p, text);
  }
}

function fail(
  op: string,
  path: string,
  reason: WorkspaceError["reason"],
  why: string,
): WorkspaceError {
  return new WorkspaceError(`Workspace ${op} ${quotePath(path)}: ${why}`, { path, reason });
}

/** Sort by UTF-16 code unit, the same on every machine and locale. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
