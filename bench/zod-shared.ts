/**
 * One zod in a benchmark worker, as in an application. nodestep loads zod on first use with
 * `require` of zod's ES module (src/zod-runtime.ts), which in plain Node.js 20.19+ is the very
 * module instance the application's `import "zod"` has. Under tsx (the workers run the sources
 * through it) that `require` compiles zod a second time into a CommonJS copy, so nodestep's own
 * schemas (messages, tools) ran on a second zod, and slower. Importing this module first puts
 * the application's zod in the `require` cache under that path, which is what Node.js does.
 *
 * @module
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as zod from "zod";

const require = createRequire(import.meta.url);
const path = fileURLToPath(import.meta.resolve("zod"));
require.cache[path] ??= { id: path, filename: path, loaded: true, exports: zod } as NodeModule;
