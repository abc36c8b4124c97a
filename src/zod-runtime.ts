/**
 * zod, loaded on first use. nodestep is built on zod 4 (a peer dependency: the application's
 * own copy), but `import("nodestep")` does not load it: zod alone takes longer to import than
 * the whole of nodestep, and an application that builds its graphs from plain objects never
 * needs it. The first schema nodestep builds or reads (a message, a tool, a state field, a
 * spec) calls {@link zod}, which loads the application's zod once, synchronously, and checks
 * that it is zod 4. With zod 3 installed, that first use stops with an error that says so,
 * instead of failing later on a schema it cannot read.
 *
 * Checks of the kind `value instanceof z.ZodType` are {@link isZodType} here: zod 4 answers
 * `instanceof` from the schema's own traits (`schema._zod.traits`), which needs no zod.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type * as Zod from "zod";
import { nodeModule } from "./lazy.js";

/** The zod versions nodestep works with (4.0 to 4.4 differ in the JSON Schema of specs) (package.json: `"zod": "^4.5.0"`). */
export const SUPPORTED_ZOD = "^4.5.0";

let loaded: typeof Zod | undefined;

/**
 * The application's zod module, loaded on the first call (the same module instance as the
 * application's own `import "zod"`: its ES module, through `require(esm)` of Node.js 20.19+;
 * where that is not possible, zod's CommonJS build, which zod 4 makes interchangeable).
 * @throws Error "nodestep needs zod 4 …" when the installed zod is zod 3 or older.
 */
export function zod(): typeof Zod {
  if (loaded !== undefined) return loaded;
  const z = load();
  checkZodVersion(z);
  loaded = z;
  return z;
}

/**
 * Check that a loaded zod module is zod 4 (it has `toJSONSchema`).
 * @throws Error "nodestep needs zod 4 (^4.5.0), but the installed "zod" is zod 3 or older: …"
 */
export function checkZodVersion(z: unknown): asserts z is typeof Zod {
  if (typeof (z as { toJSONSchema?: unknown }).toJSONSchema !== "function") {
    throw new Error(
      `nodestep needs zod 4 (${SUPPORTED_ZOD}), but the installed "zod" is zod 3 or older: install zod 4 with npm install zod@${SUPPORTED_ZOD}`,
    );
  }
}

function load(): typeof Zod {
  const require = nodeModule().createRequire(import.meta.url);
  try {
    // The ES module the application's `import "zod"` loads (not the CommonJS build that a
    // plain require would pick), so that both share one module instance.
    return require(fileURLToPath(import.meta.resolve("zod"))) as typeof Zod;
  } catch {
    return require("zod") as typeof Zod;
  }
}

/**
 * Whether `value` is a zod 4 schema of the given kind (`"ZodType"`: any classic schema;
 * `"ZodObject"`: an object schema): what `value instanceof z.ZodType` answers in zod 4,
 * without loading zod.
 */
export function isZodType(value: unknown, kind = "ZodType"): value is Zod.ZodType {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const traits = (value as { _zod?: { traits?: unknown } })._zod?.traits;
  return traits instanceof Set && traits.has(kind);
}

/**
 * {@link isZodType}, or, for a value that is not a zod 4 schema, the zod-3 error of
 * {@link zod} when the installed zod is zod 3 (its schemas are what such a value most likely
 * is); `false` otherwise.
 */
export function checkZodType(value: unknown, kind = "ZodType"): value is Zod.ZodType {
  if (isZodType(value, kind)) return true;
  zod();
  return false;
}
