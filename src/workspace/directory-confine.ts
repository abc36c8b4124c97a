/**
 * Keeping a `DirectoryWorkspace` inside its root: real paths checked to be under it, parent
 * directories made one at a time, open descriptors checked again through `/proc/self/fd`,
 * and the listing walk that follows no link out.
 *
 * @module
 */
import type { Dirent, Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, readdir, readlink, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { codeOf, fail, fsError, outside } from "./directory-errors.js";
import { quotePath } from "./paths.js";

/** `lstat` of `p`, or `null` when nothing is there. */
export async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await lstat(p);
  } catch (e) {
    if (codeOf(e) === "ENOENT") return null;
    throw e;
  }
}

/** Whether the real path `p` is the root or under it. */
export function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The path to work through for the open directory `fh` (its `/proc/self/fd` entry on
 * Linux, after checking that it is the directory that was checked and inside the root);
 * elsewhere `checked` itself.
 */
export async function viaDescriptor(
  fh: FileHandle,
  checked: string,
  root: string,
  op: string,
  path: string,
): Promise<string> {
  const via = `/proc/self/fd/${fh.fd}`;
  let where: string;
  try {
    where = await readlink(via);
  } catch {
    return checked;
  }
  if (!isAbsolute(where)) return checked;
  if (!inside(root, where)) throw outside(op, path);
  if (where !== checked) {
    throw fail(op, path, "changed", "the directory changed while the call ran; try again");
  }
  return via;
}

/** The real path of `full`, checked to be under the root. */
export async function resolveInside(
  full: string,
  root: string,
  op: string,
  path: string,
): Promise<string> {
  let real: string;
  try {
    real = await realpath(full);
  } catch (e) {
    throw fsError(e, op, path);
  }
  if (!inside(root, real)) throw outside(op, path);
  return real;
}

/** Create the missing directories of `segments` under the root, one at a time; returns the parent's real path. */
export async function makeParents(
  root: string,
  segments: readonly string[],
  path: string,
): Promise<string> {
  let dir = root;
  for (const s of segments) {
    const next = join(dir, s);
    let st: Stats | null;
    try {
      st = await lstatOrNull(next);
    } catch (e) {
      throw fsError(e, "writeFile", path);
    }
    if (st === null) {
      try {
        await mkdir(next);
        dir = next;
        continue;
      } catch (e) {
        if (codeOf(e) !== "EEXIST") throw fsError(e, "writeFile", path);
        st = await lstat(next).catch((e2: unknown) => {
          throw fsError(e2, "writeFile", path);
        });
      }
    }
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = await realpath(next);
      } catch (e) {
        if (codeOf(e) === "ENOENT") {
          throw fail(
            "writeFile",
            path,
            "broken-link",
            `${quotePath(s)} is a symbolic link to nothing`,
          );
        }
        throw fsError(e, "writeFile", path);
      }
      if (!inside(root, real)) throw outside("writeFile", path);
      const realSt = await stat(real).catch((e2: unknown) => {
        throw fsError(e2, "writeFile", path);
      });
      if (!realSt.isDirectory()) {
        throw fail("writeFile", path, "not-a-directory", `${quotePath(s)} is not a directory`);
      }
      dir = real;
    } else if (st.isDirectory()) {
      dir = next;
    } else {
      throw fail("writeFile", path, "not-a-directory", `${quotePath(s)} is not a directory`);
    }
  }
  return resolveInside(dir, root, "writeFile", path);
}

/** On Linux, check where the open descriptor really is. */
export async function checkOpen(
  fh: FileHandle,
  root: string,
  op: string,
  path: string,
): Promise<void> {
  let where: string;
  try {
    where = await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return;
  }
  if (!isAbsolute(where)) return;
  if (!inside(root, where)) throw outside(op, path);
}

/** Collect the files under `dir` (real path) as paths starting with `prefix`. */
export async function walk(
  root: string,
  dir: string,
  prefix: string,
  out: string[],
): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const rel = prefix === "" ? e.name : `${prefix}/${e.name}`;
    const full = join(dir, e.name);
    if (e.isDirectory()) await walk(root, full, rel, out);
    else if (e.isFile()) out.push(rel);
    else if (e.isSymbolicLink()) {
      try {
        const real = await realpath(full);
        if (inside(root, real) && (await stat(real)).isFile()) out.push(rel);
      } catch {
        // a link to nothing is not listed
      }
    }
  }
}
