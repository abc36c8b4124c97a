/**
 * `DirectoryWorkspace`: a workspace in a directory on disk, confined to it.
 *
 * @module
 */
import type { Stats } from "node:fs";
import { constants, type FileHandle, open, realpath, stat, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { WorkspaceError } from "../errors/index.js";
import {
  checkOpen,
  inside,
  lstatOrNull,
  makeParents,
  resolveInside,
  viaDescriptor,
  walk,
} from "./directory-confine.js";
import { codeOf, fail, fsError, outside } from "./directory-errors.js";
import { byCodeUnit } from "./memory.js";
import { pathSegments, quotePath } from "./paths.js";
import type { Workspace } from "./types.js";

/** `O_NOFOLLOW` where the platform has it (not on Windows), else 0. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** `O_NONBLOCK` where the platform has it: opening a named pipe must not hang. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;
/** `O_DIRECTORY` where the platform has it, else 0. */
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/**
 * A {@link Workspace} in a directory on disk that never reads or writes outside it.
 *
 * Refused, each with a `WorkspaceError` whose `reason` says why: absolute paths, `..`
 * segments, NUL bytes, backslashes, names over 255 bytes and paths over 4096 bytes (checked
 * before the disk is touched), and every path that leads out of the root through a symbolic
 * link (`"outside-root"`). Links that stay inside the root work.
 *
 * How it stays inside:
 * - reads resolve the file with `realpath` and check that it is under the root's real path,
 *   then open the resolved path with `O_NOFOLLOW` (a link swapped in at the last component
 *   fails to open);
 * - writes create missing parent directories one at a time, refusing any link on the way
 *   that leads out, check the parent's real path, and open the file with `O_NOFOLLOW`
 *   without truncating it; a link as the last component is followed only when it resolves
 *   inside the root (a link to nothing is refused: `"broken-link"`);
 * - on Linux, once a file is open, the path of the open descriptor
 *   (`/proc/self/fd/<n>`) is checked again, so a directory swapped for a link between the
 *   check and the open is caught before a byte is read or written;
 * - `delete` removes a link itself, never its target, after checking the parent's real path;
 * - `list` does not descend into linked directories, and lists a linked file only when it
 *   resolves inside the root.
 *
 * What remains: a process that can change the directory while a call runs may, in the
 * window between a check and the next step, make a write create an empty directory or an
 * empty file outside the root (never write into one), or make `delete` remove a file the
 * check did not see. Give an agent a directory that nothing else changes at the same time.
 * Named pipes, sockets and devices are refused (`"not-a-file"`).
 *
 * @example
 * ```ts
 * const ws = new DirectoryWorkspace("/srv/agent-files");
 * await ws.writeFile("notes/plan.md", "1. read\n");
 * await ws.readFile("../etc/passwd"); // WorkspaceError (reason "parent-segment")
 * ```
 */
export class DirectoryWorkspace implements Workspace {
  /** The root as given, made absolute. */
  readonly root: string;
  /** Whether regular files with more than one hard link are read and written. */
  readonly allowHardLinks: boolean;
  #real: Promise<string> | null = null;

  /**
   * @param root - the directory (absolute, or relative to the working directory). It must
   *   exist when the first call is made.
   * @param options.allowHardLinks - read and write regular files that have more than one hard
   *   link (default `false`: refused with reason `"hard-link"`, since another link to the same
   *   file may be outside the root; allow it only for a root that no one else can link into).
   * @throws TypeError when `root` is not a non-empty string.
   */
  constructor(root: string, options: { allowHardLinks?: boolean } = {}) {
    if (typeof root !== "string" || root === "") {
      throw new TypeError("new DirectoryWorkspace(root): root must be a non-empty directory path");
    }
    this.root = resolve(root);
    this.allowHardLinks = options.allowHardLinks === true;
  }

  #checkLinks(st: Stats, op: string, path: string): void {
    if (st.isFile() && st.nlink > 1 && !this.allowHardLinks) {
      throw fail(
        op,
        path,
        "hard-link",
        `it has ${st.nlink} hard links (another may be outside the root); new DirectoryWorkspace(root, { allowHardLinks: true }) allows them`,
      );
    }
  }

  async readFile(path: string): Promise<string> {
    const segments = pathSegments(path, "readFile", false);
    const root = await this.#rootReal("readFile", path);
    const real = await resolveInside(join(root, ...segments), root, "readFile", path);
    let fh: FileHandle;
    try {
      fh = await open(real, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      throw fsError(e, "readFile", path);
    }
    try {
      await checkOpen(fh, root, "readFile", path);
      const st = await fh.stat();
      if (st.isDirectory()) throw fail("readFile", path, "is-a-directory", "it is a directory");
      if (!st.isFile()) throw fail("readFile", path, "not-a-file", "it is not a regular file");
      this.#checkLinks(st, "readFile", path);
      return await fh.readFile({ encoding: "utf8" });
    } catch (e) {
      throw fsError(e, "readFile", path);
    } finally {
      await fh.close();
    }
  }

  async writeFile(path: string, text: string): Promise<void> {
    const segments = pathSegments(path, "writeFile", false);
    if (typeof text !== "string") {
      throw new TypeError(
        `Workspace writeFile: the text of ${quotePath(path)} must be a string, got ${text === null ? "null" : typeof text}`,
      );
    }
    const root = await this.#rootReal("writeFile", path);
    const parent = await makeParents(root, segments.slice(0, -1), path);
    let target = join(parent, segments.at(-1) as string);
    const st = await lstatOrNull(target).catch((e: unknown) => {
      throw fsError(e, "writeFile", path);
    });
    if (st?.isSymbolicLink()) {
      let real: string;
      try {
        real = await realpath(target);
      } catch (e) {
        if (codeOf(e) === "ENOENT") {
          throw fail("writeFile", path, "broken-link", "it is a symbolic link to nothing");
        }
        throw fsError(e, "writeFile", path);
      }
      if (!inside(root, real)) throw outside("writeFile", path);
      target = real;
    } else if (st?.isDirectory()) {
      throw fail("writeFile", path, "is-a-directory", "it is a directory");
    }
    let fh: FileHandle;
    try {
      fh = await open(target, constants.O_WRONLY | constants.O_CREAT | NOFOLLOW | NONBLOCK, 0o666);
    } catch (e) {
      throw fsError(e, "writeFile", path);
    }
    try {
      await checkOpen(fh, root, "writeFile", path);
      const opened = await fh.stat();
      if (!opened.isFile()) throw fail("writeFile", path, "not-a-file", "it is not a regular file");
      this.#checkLinks(opened, "writeFile", path);
      await fh.truncate(0);
      await fh.writeFile(text, { encoding: "utf8" });
    } catch (e) {
      throw fsError(e, "writeFile", path);
    } finally {
      await fh.close();
    }
  }

  async list(dir = ""): Promise<string[]> {
    const segments = pathSegments(dir, "list", true);
    const root = await this.#rootReal("list", dir);
    const real = await resolveInside(join(root, ...segments), root, "list", dir);
    let st: Stats;
    try {
      st = await stat(real);
    } catch (e) {
      throw fsError(e, "list", dir);
    }
    if (!st.isDirectory()) throw fail("list", dir, "not-a-directory", "it is not a directory");
    const out: string[] = [];
    await walk(root, real, segments.join("/"), out);
    return out.sort(byCodeUnit);
  }

  async delete(path: string): Promise<void> {
    const segments = pathSegments(path, "delete", false);
    const root = await this.#rootReal("delete", path);
    const parent = await resolveInside(join(root, ...segments.slice(0, -1)), root, "delete", path);
    const name = segments.at(-1) as string;
    // Open the parent once and work through that descriptor (`/proc/self/fd/<n>/<name>` on
    // Linux): a directory swapped for a link after the check cannot redirect the unlink.
    let dirFh: FileHandle | null = null;
    try {
      dirFh = await open(parent, constants.O_RDONLY | DIRECTORY | NOFOLLOW);
    } catch (e) {
      throw fsError(e, "delete", path);
    }
    try {
      const via = await viaDescriptor(dirFh, parent, root, "delete", path);
      const target = join(via, name);
      let st: Stats | null;
      try {
        st = await lstatOrNull(target);
      } catch (e) {
        throw fsError(e, "delete", path);
      }
      if (st === null) throw fail("delete", path, "not-found", "no such file");
      if (st.isDirectory()) throw fail("delete", path, "is-a-directory", "it is a directory");
      try {
        await unlink(target);
      } catch (e) {
        throw fsError(e, "delete", path);
      }
    } finally {
      await dirFh.close();
    }
  }

  /** The root's real path, resolved once. */
  async #rootReal(op: string, path: string): Promise<string> {
    this.#real ??= realpath(this.root);
    try {
      return await this.#real;
    } catch (e) {
      this.#real = null;
      throw new WorkspaceError(
        `Workspace ${op} ${quotePath(path)}: the workspace root ${JSON.stringify(this.root)} does not exist or cannot be read`,
        { path, reason: "not-found", cause: e },
      );
    }
  }
}
