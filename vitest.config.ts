import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `nodestep` and its subpaths resolve to the sources here, through tsconfig.json's `paths` (which
// tsx reads too, for the examples and child processes run with `node --import tsx`). The published
// export map points at dist/ only.
const tsconfig = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const alias = Object.entries(tsconfig.compilerOptions.paths).map(([name, [file]]) => ({
  find: new RegExp(`^${name.replace("/", "\\/")}$`),
  replacement: fileURLToPath(new URL(file, import.meta.url)),
}));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
