/**
 * Shallow copies of state objects at a cost that does not depend on how many other state
 * shapes the process copies. `{ ...state }` is fast only while V8's inline cache at that one
 * spread has seen few object shapes; an engine that copies the states of many graphs (or one
 * graph's state as fields are added) pushes it to its generic path, which adds the properties
 * one by one (about 35 ns each: 7 µs for a state of 200 fields). Here each list of keys gets
 * its own small copier, a constructor `function (s) { this["a"] = s["a"]; … }` whose
 * prototype is `Object.prototype` (what it makes is a plain object with those keys in that
 * order, as `{ ...s }` is), made once with `new Function` and kept (at most {@link MAX_COPIERS} key lists, up to {@link MAX_KEYS} keys
 * each), so every copy site stays monomorphic. Where code cannot be made from strings
 * (`--disallow-code-generation-from-strings`), a key list it cannot take (`__proto__`; a list
 * that joins to another one's id, by a key holding "\u0000"), or past those limits, the copy is a
 * spread.
 *
 * When making a function fails, what is remembered depends on why (see {@link generate}): an
 * `EvalError` is the environment refusing code from strings (Node's flag, a browser's or a
 * worker's Content Security Policy without `unsafe-eval`), which will refuse every later list
 * too, so no function is made again in this process (one failed try, then no cost); any other
 * error (a `RangeError` for a call made near the stack's limit, or for keys whose source
 * would pass V8's longest string) belongs to that key list: that list copies by spread from
 * then on (kept as its entry, so it is not tried again), and other lists still get their own.
 *
 * @module
 */

/** Makes a copy of a state object with exactly the keys, in the order, it was made for. */
export type Copier = (state: Record<string, unknown>) => Record<string, unknown>;

/**
 * How many key lists get their own copier (later ones copy by spread), and how many their own
 * {@link Maker} (later ones get none: the caller sets the keys one by one).
 */
export const MAX_COPIERS = 512;
/** Key lists longer than this copy by spread. */
export const MAX_KEYS = 2000;

/**
 * A function made for a key list, with the list (two lists may join to one id: see
 * {@link kept}); for a list whose function could not be made, `spreadCopy` or `null`.
 */
interface Kept<F> {
  keys: readonly string[];
  fn: F;
}

const copiers = new Map<string, Kept<Copier>>();
const makers = new Map<string, Kept<Maker | null>>();
/** False once the environment refused code from strings (an `EvalError`): see {@link generate}. */
let canGenerate = true;

/** The spread copy, for what gets no copier of its own. */
export const spreadCopy: Copier = (state) => ({ ...state });

/**
 * The copier for the own enumerable keys of `state` as they are now (one pass over its keys):
 * valid for `state`, and for any object with the same keys in the same order, until a key is
 * added or deleted.
 */
export function copierFor(state: Record<string, unknown>): Copier {
  return copierForKeys(Object.keys(state));
}

/**
 * The copier for objects with exactly `keys`, in that order (see {@link copierFor});
 * {@link spreadCopy} where none can be made (the module's TSDoc says when, and what a failure
 * to make one turns off: the whole process for an `EvalError`, else this key list only).
 */
export function copierForKeys(keys: readonly string[]): Copier {
  if (!canGenerate || keys.length > MAX_KEYS || keys.length === 0) return spreadCopy;
  const id = keys.join("\u0000");
  const known = kept(copiers, id, keys);
  if (known !== undefined) return known ?? spreadCopy;
  if (copiers.size >= MAX_COPIERS || keys.includes("__proto__")) return spreadCopy;
  // A constructor, not an object literal: V8 makes an object of many properties from a
  // literal several times slower than a constructor fills one (whose prototype is set to
  // Object.prototype, so that what it makes is a plain object, as a spread's copy is).
  const copier = generate<Copier>(keys, (k) => `s[${JSON.stringify(k)}]`, "copy(s)");
  if (copier === null && !canGenerate) return spreadCopy; // (the environment's refusal)
  copiers.set(id, { keys: keys.slice(), fn: copier ?? spreadCopy });
  return copier ?? spreadCopy;
}

/**
 * Makes a plain object of the keys it was made for from their values, in the same order
 * (`values[i]` for the i-th key).
 */
export type Maker = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * The {@link Maker} for `keys`, made once per key list and kept (as copiers are: at most
 * {@link MAX_COPIERS} key lists), or `null` where no code can be made (as for
 * {@link copierForKeys}) or past that limit: the caller then sets the keys one by one. Kept,
 * because a definition whose defaults are sometimes `undefined` (initial-state.ts) asks for
 * two key lists in turn, and making a constructor of 200 keys takes about half a millisecond.
 * What it makes has V8's fast properties however many keys there are; an object given more
 * than a dozen or so keys one at a time becomes a dictionary, several times slower to read and
 * to copy.
 */
export function makerForKeys(keys: readonly string[]): Maker | null {
  if (!canGenerate || keys.length > MAX_KEYS || keys.length === 0 || keys.includes("__proto__"))
    return null;
  const id = keys.join("\u0000");
  const known = kept(makers, id, keys);
  if (known !== undefined) return known;
  if (makers.size >= MAX_COPIERS) return null;
  const maker = generate<Maker>(keys, (_, i) => `s[${i}]`, "make(s)");
  if (maker !== null || canGenerate) makers.set(id, { keys: keys.slice(), fn: maker });
  return maker;
}

/**
 * The function kept under `id` (`keys` joined by "\u0000") when it was made for `keys`;
 * `undefined` when none is kept; `null` when the one kept was made for another list that joins
 * to the same id (a key holding "\u0000", as `["a\u0000b"]` and `["a", "b"]`): `keys` gets none.
 */
function kept<F>(
  map: Map<string, Kept<F>>,
  id: string,
  keys: readonly string[],
): F | null | undefined {
  const k = map.get(id);
  if (k === undefined) return undefined;
  return sameKeys(k.keys, keys) ? k.fn : null;
}

/** Whether two key lists are the same keys in the same order. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A function `fn` (`"copy(s)"`) returning `new Make(s)`, Make setting each key to `read(key, i)`;
 * `null` when it cannot be made. An `EvalError` (code from strings refused by the environment)
 * also turns generation off for the process (`canGenerate`); any other error is this key
 * list's alone (the caller keeps `null` for the list). The source is valid for any keys (each
 * one a JSON string literal), so such an error is not a syntax error but a limit reached.
 */
function generate<F>(
  keys: readonly string[],
  read: (key: string, i: number) => string,
  fn: string,
): F | null {
  try {
    const body = keys.map((k, i) => `this[${JSON.stringify(k)}] = ${read(k, i)};`);
    return new Function(
      `"use strict";\nfunction Make(s) {\n${body.join("\n")}\n}\nMake.prototype = Object.prototype;\nreturn function ${fn} { return new Make(s); };`,
    )() as F;
  } catch (e) {
    if (e instanceof EvalError || (e as { name?: unknown } | null)?.name === "EvalError")
      canGenerate = false;
    return null;
  }
}
