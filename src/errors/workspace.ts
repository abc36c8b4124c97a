/**
 * The error of workspaces and the file tools.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/**
 * A workspace refused or failed a file operation. `reason` says why:
 * `"absolute-path"`, `"parent-segment"` (`..`), `"nul-byte"`, `"invalid-path"` (empty, or a
 * backslash), `"name-too-long"` (a segment over 255 bytes), `"path-too-long"` (over 4096
 * bytes), `"outside-root"` (a symbolic link leads out of the root), `"not-found"`,
 * `"is-a-directory"`, `"not-a-directory"`, `"not-a-file"` (a device, a pipe, a socket),
 * `"broken-link"` (a write through a link to nothing), `"hard-link"` (a regular file with more
 * than one hard link, refused unless the workspace allows them), `"changed"` (the directory
 * changed under the call between its check and its use), `"io-error"` (any other failure of
 * the file system, its code in the message). `path` is the path as the caller gave it.
 */
export class WorkspaceError extends NodestepError {
  readonly path: string;
  readonly reason:
    | "absolute-path"
    | "parent-segment"
    | "nul-byte"
    | "invalid-path"
    | "name-too-long"
    | "path-too-long"
    | "outside-root"
    | "not-found"
    | "is-a-directory"
    | "not-a-directory"
    | "not-a-file"
    | "broken-link"
    | "hard-link"
    | "changed"
    | "io-error";
  constructor(
    message: string,
    options: NodestepErrorOptions & { path: string; reason: WorkspaceError["reason"] },
  ) {
    super(message, options);
    this.path = options.path;
    this.reason = options.reason;
  }
}
