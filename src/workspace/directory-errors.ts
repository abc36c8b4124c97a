/**
 * A `DirectoryWorkspace` call's failures as `WorkspaceError`s: its own refusals, and the file
 * system's error codes mapped to a `reason`.
 *
 * @module
 */
import { WorkspaceError } from "../errors/index.js";
import { quotePath } from "./paths.js";

/** The `reason` of a `WorkspaceError`. */
export type Reason = WorkspaceError["reason"];

/** The `code` of a file-system error (`"ENOENT"`…), or `null`. */
export function codeOf(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/** The error for `op` on `path`, refused for `reason` (`why` says it in words). */
export function fail(op: string, path: string, reason: Reason, why: string): WorkspaceError {
  return new WorkspaceError(`Workspace ${op} ${quotePath(path)}: ${why}`, { path, reason });
}

/** The error for a path that a symbolic link leads out of the root. */
export function outside(op: string, path: string): WorkspaceError {
  return fail(op, path, "outside-root", "a symbolic link leads outside the workspace root");
}

/** A file-system error of `op` on `path` as a `WorkspaceError` (one already is passes through). */
export function fsError(e: unknown, op: string, path: string): WorkspaceError {
  const code = codeOf(e);
  const map: Record<string, [Reason, string]> = {
    ENOENT: ["not-found", "no such file or directory"],
    ENOTDIR: ["not-a-directory", "a parent is not a directory"],
    EISDIR: ["is-a-directory", "it is a directory"],
    ELOOP: ["outside-root", "it is a symbolic link that cannot be followed safely"],
    ENAMETOOLONG: ["path-too-long", "the path is too long for the file system"],
    ENXIO: ["not-a-file", "it is not a regular file"],
  };
  const hit = code === null ? undefined : map[code];
  if (hit !== undefined) {
    return new WorkspaceError(`Workspace ${op} ${quotePath(path)}: ${hit[1]}`, {
      path,
      reason: hit[0],
      cause: e,
    });
  }
  if (e instanceof WorkspaceError) return e;
  return new WorkspaceError(
    `Workspace ${op} ${quotePath(path)}: the file system failed (${code ?? (e as Error)?.message ?? String(e)})`,
    { path, reason: "io-error", cause: e },
  );
}
