/**
 * `nodestep serve --watch`: call back when a file changes, debounced, one call at a time.
 *
 * @module
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";

/** How long changes are gathered before one reload, in ms. */
export const WATCH_DEBOUNCE_MS = 100;

/**
 * Watch `path` (through its directory, so that an editor that replaces the file on save is
 * seen too) and call `onChange(n)` after each burst of changes, `n` counting from 1; a call
 * waits for the one before it to settle.
 * @returns a function that stops watching.
 * @throws what `fs.watch` throws for a directory that cannot be watched.
 */
export function watchFile(
  path: string,
  onChange: (version: number) => Promise<void>,
  debounceMs = WATCH_DEBOUNCE_MS,
): () => void {
  const name = basename(path);
  let version = 0;
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();
  const watcher: FSWatcher = watch(dirname(path), (_event, file) => {
    if (file !== null && file !== name) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      version += 1;
      const v = version;
      chain = chain.then(() => onChange(v)).catch(() => {});
    }, debounceMs);
  });
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
