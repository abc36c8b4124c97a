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
    get: (_t, key) => Reflect.get(real(), key),
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
