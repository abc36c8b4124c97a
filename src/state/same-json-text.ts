/**
 * Whether two values have the same JSON text, decided by a walk where it can be: the update
 * codec's test of a list repeated from its neighbour (`update-codec.ts`) without making both
 * texts.
 *
 * @module
 */

/** What a value is as JSON text, or `null` when only `JSON.stringify` can say. */
type Kind = "string" | "number" | "boolean" | "null" | "array" | "object";

/**
 * Whether `JSON.stringify(a) === JSON.stringify(b)`: `true` or `false` when the walk decides
 * it (plain objects and arrays of strings, finite numbers, booleans and `null`), `null` when it
 * meets what only `JSON.stringify` itself can decide (a value the text leaves out or changes:
 * `undefined`, a function, a symbol, a bigint, a non-finite number, a `toJSON`, an object
 * that is not a plain object or array; or objects with another number or order of keys).
 * Key order counts, as in the text. Stops at the first difference.
 * @example
 * ```ts
 * sameJsonText([{ a: 1, b: "x" }], [{ a: 1, b: "x" }]); // true
 * sameJsonText([1, 2], [1, 3]);                         // false
 * sameJsonText({ a: undefined }, {});                   // null (JSON.stringify decides)
 * ```
 */
export function sameJsonText(a: unknown, b: unknown): boolean | null {
  const kind = kindOf(a);
  const other = kindOf(b);
  if (kind === null || other === null) return null;
  // Texts of different kinds differ in their first character (or are "null" against a
  // number, a boolean, a string: different too).
  if (kind !== other) return false;
  switch (kind) {
    case "string":
    case "boolean":
    case "null":
      return a === b;
    case "number":
      // (-0 and 0 are both "0", and -0 === 0; distinct finite numbers have distinct texts.)
      return a === b;
    case "array": {
      const x = a as unknown[];
      const y = b as unknown[];
      // (Every item of a plain array is in its text: "null" for a hole or undefined.)
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        const r = sameJsonText(x[i], y[i]);
        if (r !== true) return r;
      }
      return true;
    }
    default: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      // (A key whose value the text leaves out would make the counts and order misleading:
      // such a value answers null below, but only once reached.)
      if (kx.length !== ky.length) return null;
      for (let i = 0; i < kx.length; i++) {
        const k = kx[i]!;
        if (k !== ky[i]) return null;
        const r = sameJsonText(x[k], y[k]);
        if (r !== true) return r;
      }
      return true;
    }
  }
}

function kindOf(v: unknown): Kind | null {
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isFinite(v) ? "number" : null;
    case "object": {
      if (v === null) return "null";
      // Read as JSON.stringify reads it (a get: a proxy's has trap may say otherwise).
      if ((v as { toJSON?: unknown }).toJSON !== undefined) return null;
      const proto = Object.getPrototypeOf(v);
      if (Array.isArray(v)) return proto === Array.prototype ? "array" : null;
      return proto === Object.prototype || proto === null ? "object" : null;
    }
    default:
      return null;
  }
}
