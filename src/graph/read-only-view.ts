/**
 * A read-only view of JSON data (plain objects and arrays), for `checkInput`: the hook is
 * given the thread's own cached state, without a copy, and a change there would make the
 * thread's warm state differ from what its events give.
 *
 * @module
 */

/** Checks known to only read what they are given (nodestep's own): see {@link markReadsOnly}. */
const readers = new WeakSet<object>();

/**
 * Mark a `checkInput` of nodestep's own as one that only reads what it is given (never
 * changes it, keeps none of it): such a check is given the thread's state, the input and the
 * interrupts themselves, without read-only views (a view costs a proxy and a trap per read:
 * about 5% of an agent turn's CPU on the memory store). Not for a user's check.
 */
export function markReadsOnly(check: object): void {
  readers.add(check);
}

/** Whether `check` was marked with {@link markReadsOnly}. */
export function readsOnly(check: object): boolean {
  return readers.has(check);
}

/**
 * A function giving values as views that read as they do (nested objects as views too, the
 * same view for the same object, within this function's views) and throw a `TypeError` on any
 * change (set, delete, define, a new prototype): it costs what is read, not the data's size.
 * Values that are not objects are given as they are. (No WeakMap: its entries, one per object
 * read, cost the garbage collector more than the views.)
 * @param graph - the graph's name, for the error.
 * @throws TypeError (from a view) on a change, naming the graph and the property.
 */
export function readOnlyViews(graph: string): <T>(value: T) => T {
  const views = new ReadOnlyViews(graph);
  return (value) => views.viewOf(value);
}

/**
 * The views of one check, and their proxies' handler. A class, not closures: every named
 * closure per check costs a name set on it in the build (esbuild's keepNames), eight a check;
 * the traps are the prototype's, `this` the handler.
 */
class ReadOnlyViews implements ProxyHandler<object> {
  /** The view of each object read, made on the first view. */
  #views: Map<object, object> | null = null;

  constructor(readonly graph: string) {}

  viewOf<T>(value: T): T {
    if (value === null || typeof value !== "object") return value;
    this.#views ??= new Map();
    let view = this.#views.get(value);
    if (view === undefined) {
      view = new Proxy(value, this);
      this.#views.set(value, view);
    }
    return view as T;
  }

  get(target: object, key: string | symbol): unknown {
    const v: unknown = Reflect.get(target, key);
    if (v === null || typeof v !== "object") return v;
    // (A proxy must give a frozen property's own value.)
    if (!Object.isExtensible(target)) {
      const d = Reflect.getOwnPropertyDescriptor(target, key);
      if (d && !d.configurable && d.writable === false) return v;
    }
    return this.viewOf(v);
  }

  set(_: object, key: string | symbol): boolean {
    return this.#refuse(`set ${JSON.stringify(String(key))}`);
  }

  deleteProperty(_: object, key: string | symbol): boolean {
    return this.#refuse(`delete ${JSON.stringify(String(key))}`);
  }

  defineProperty(_: object, key: string | symbol): boolean {
    return this.#refuse(`define ${JSON.stringify(String(key))}`);
  }

  setPrototypeOf(): boolean {
    return this.#refuse("set a prototype");
  }

  preventExtensions(): boolean {
    return this.#refuse("prevent extensions");
  }

  #refuse(what: string): never {
    throw new TypeError(
      `Graph "${this.graph}": checkInput is given the thread's state, the input and the interrupts read only; it cannot ${what}`,
    );
  }
}
