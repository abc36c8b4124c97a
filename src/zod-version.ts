/**
 * nodestep is built on zod 4 (a peer dependency: the application's own copy). With zod 3
 * installed, the root module stops at import with an error that says so, instead of failing
 * later on a schema it cannot read. Imported first by `src/index.ts`.
 *
 * @module
 */
import * as z from "zod";

/** The zod versions nodestep works with (4.0 to 4.4 differ in the JSON Schema of specs) (package.json: `"zod": "^4.5.0"`). */
export const SUPPORTED_ZOD = "^4.5.0";

if (typeof (z as { toJSONSchema?: unknown }).toJSONSchema !== "function") {
  throw new Error(
    `nodestep needs zod 4 (${SUPPORTED_ZOD}), but the installed "zod" is zod 3 or older: install zod 4 with npm install zod@${SUPPORTED_ZOD}`,
  );
}
