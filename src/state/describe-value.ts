/**
 * `describeValue`: a short description of a value's kind, for error messages.
 */

/** A short description of a value's kind for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return "an object";
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    return name && name !== "Object"
      ? `a ${name}`
      : "an object that is not plain (its prototype is another object)";
  }
  return `a ${typeof value} (${String(value).slice(0, 40)})`;
}
