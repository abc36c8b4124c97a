/**
 * Values built on first use, so that importing a module builds nothing it does not need
 * (nodestep's zod schemas: see zod-runtime.ts).
 *
 * @module
 */

/** A function that returns `build()`, calling it once, on the first call. */
export function memo<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}

/** The key a {@link lazyObject} stand-in answers with its built object (see {@link resolveLazy}). */
const LAZY_TARGET: unique symbol = Symbol("nodestep.lazyTarget");

/**
 * The object a {@link lazyObject} stand-in stands for (built now if it was not yet), or `value`
 * itself when it is not a stand-in. For code that keeps the object and reads it on every step
 * (a graph's state definition): each read through the stand-in costs a Proxy trap.
 */
export function resolveLazy<T>(value: T): T {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return value;
  const target = (value as { [LAZY_TARGET]?: T })[LAZY_TARGET];
  return target === undefined ? value : target;
}

/**
 * An object that stands for `build()`, built on its first use: reading, writing, listing or
 * testing a property, its prototype (`instanceof`) all go to the built object, and so do
 * method calls (`lazy.parse(x)`). For exported constants such as `MessageSchema`, which must
 * exist at import but need zod only when used. Object.freeze and Object.preventExtensions
 * of the stand-in throw a TypeError.
 */
export function lazyObject<T extends object>(build: () => T): T {
  const real = memo(build);
  const handler: ProxyHandler<object> = {
    get: (_t, key) => (key === LAZY_TARGET ? real() : Reflect.get(real(), key)),
    set: (_t, key, value) => Reflect.set(real(), key, value),
    has: (_t, key) => Reflect.has(real(), key),
    deleteProperty: (_t, key) => Reflect.deleteProperty(real(), key),
    defineProperty: (_t, key, d) => Reflect.defineProperty(real(), key, d),
    ownKeys: () => Reflect.ownKeys(real()),
    // Reported configurable: the stand-in's own (empty) target holds none of them.
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    setPrototypeOf: (_t, proto) => Reflect.setPrototypeOf(real(), proto),
    preventExtensions: () => false,
  };
  return new Proxy({}, handler) as T;
}

/**
 * `node:crypto`, loaded on first use: an `import` of it loads Node's stream modules too,
 * which is a good part of a bare start's time, and most imports of nodestep never hash.
 */
export const nodeCrypto = memo(() => process.getBuiltinModule("node:crypto"));

/** `node:module` (for `createRequire`), loaded on first use. */
export const nodeModule = memo(() => process.getBuiltinModule("node:module"));
