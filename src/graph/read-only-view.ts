/**
 * A read-only view of JSON data (plain objects and arrays), for `checkInput`: the hook is
 * given the thread's own cached state, without a copy, and a change there would make the
 * thread's warm state differ from what its events give.
 *
 * @module
 */

/** Views made, by the object viewed (the same object gives the same view, for one graph). */
const views = new WeakMap<object, { graph: string; view: object }>();
/** The views' handlers, by graph name. */
const handlers = new Map<string, ProxyHandler<object>>();

/**
 * `value` as a view that reads as it does (nested objects as views too, the same view each
 * time) and throws a `TypeError` on any change (set, delete, define, a new prototype): it
 * costs what is read, not the data's size. Values that are not objects are given as they are.
 * @param graph - the graph's name, for the error.
 * @throws TypeError (from the view) on a change, naming the graph and the property.
 */
export function readOnlyView<T>(value: T, graph: string): T {
  if (value === null || typeof value !== "object") return value;
  const made = views.get(value);
  if (made !== undefined && made.graph === graph) return made.view as T;
  let handler = handlers.get(graph);
  if (handler === undefined) {
    handler = handlerOf(graph);
    handlers.set(graph, handler);
  }
  const view = new Proxy(value, handler);
  views.set(value, { graph, view });
  return view as T;
}

function handlerOf(graph: string): ProxyHandler<object> {
  const refuse = (what: string): never => {
    throw new TypeError(
      `Graph "${graph}": checkInput is given the thread's state, the input and the interrupts read only; it cannot ${what}`,
    );
  };
  return {
    get(target, key) {
      const v = Reflect.get(target, key);
      if (v === null || typeof v !== "object") return v;
      // (A proxy must give a frozen property's own value.)
      if (!Object.isExtensible(target)) {
        const d = Reflect.getOwnPropertyDescriptor(target, key);
        if (d && !d.configurable && d.writable === false) return v;
      }
      return readOnlyView(v, graph);
    },
    set: (_, key) => refuse(`set ${JSON.stringify(String(key))}`),
    deleteProperty: (_, key) => refuse(`delete ${JSON.stringify(String(key))}`),
    defineProperty: (_, key) => refuse(`define ${JSON.stringify(String(key))}`),
    setPrototypeOf: () => refuse("set a prototype"),
    preventExtensions: () => refuse("prevent extensions"),
  };
}
