/**
 * Vitest global setup: builds the studio (scripts/build-studio.mjs) into dist/studio/ when a
 * file of src/studio/ui/ is newer than the last build (dist/studio/build.json), so that the
 * server and browser tests serve the page as its sources are now. A build takes about a
 * second; an up-to-date build costs a walk of the sources' modification times.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The newest modification time under `dir`, in ms since the epoch. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    if (t > latest) latest = t;
  }
  return latest;
}

export default async function setup(): Promise<void> {
  const stamp = join(root, "dist/studio/build.json");
  const sources = [join(root, "src/studio/ui"), join(root, "scripts/build-studio.mjs")];
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  const changed = Math.max(
    ...sources.map((s) => (statSync(s).isDirectory() ? newest(s) : statSync(s).mtimeMs)),
  );
  if (changed <= built) return;
  const { buildStudio } = (await import(join(root, "scripts/build-studio.mjs"))) as {
    buildStudio(outDir?: string): Promise<void>;
  };
  await buildStudio();
}
