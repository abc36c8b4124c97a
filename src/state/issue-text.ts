/**
 * What a state field's validation error says: the first zod issue, but for a union (zod's
 * bare "Invalid input") the issue of the alternative that got furthest into the value, or,
 * when every alternative failed on the value's type, the types they expected — so an error
 * names the path and what was expected there (`messages[0].type: Invalid discriminator
 * value …`, `Invalid input: expected array or object, received number`).
 *
 * @module
 */

/** The parts of a zod issue read here (zod 4's `$ZodIssue`, structurally). */
export interface IssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: unknown;
  /** For `invalid_union`: the issues of each alternative. */
  errors?: readonly (readonly IssueLike[])[];
}

/** An issue explained: where in the value (from the value's root) and what is wrong there. */
export interface IssueText {
  path: PropertyKey[];
  message: string;
}

/** zod's name of a value's type (as in "received number"). */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

interface Explained extends IssueText {
  /** The types expected, when every alternative failed on the value's type at `path`. */
  expected: string[] | null;
  /** How many issues its alternative had (fewer: a closer match). */
  issues: number;
}

function explain(issue: IssueLike, base: readonly PropertyKey[], value: unknown): Explained {
  const path = [...base, ...issue.path];
  const typeOnly = issue.code === "invalid_type" && typeof issue.expected === "string";
  const options = (issue.errors ?? [])
    .filter((branch) => branch.length > 0)
    .map((branch) => ({ ...explain(branch[0]!, path, value), issues: branch.length }));
  if (issue.code !== "invalid_union" || options.length === 0) {
    return {
      path,
      message: issue.message,
      expected: typeOnly ? [issue.expected as string] : null,
      issues: 1,
    };
  }
  const depth = (e: Explained) => e.path.length;
  const deepest = Math.max(...options.map(depth));
  // Every alternative failed on the type of the value itself: say which types were expected.
  if (deepest === path.length && options.every((o) => o.expected !== null)) {
    const expected = [...new Set(options.flatMap((o) => o.expected!))];
    return {
      path,
      message: `Invalid input: expected ${expected.join(" or ")}, received ${typeName(at(value, path))}`,
      expected,
      issues: 1,
    };
  }
  // Else the alternative that got furthest into the value (of those, the one with fewest issues).
  const best = options
    .filter((o) => depth(o) === deepest)
    .reduce((a, b) => (b.issues < a.issues ? b : a));
  return best;
}

/**
 * The path and message of the first issue of a failed parse of `value`, unions explained (see
 * the module's comment).
 *
 * @example issueText({ code: "invalid_union", path: [], message: "Invalid input", errors: [[{ code: "invalid_type", expected: "array", path: [], message: "…" }], [{ code: "invalid_type", expected: "object", path: [], message: "…" }]] }, 5)
 * // { path: [], message: "Invalid input: expected array or object, received number" }
 */
export function issueText(issue: IssueLike, value: unknown): IssueText {
  const { path, message } = explain(issue, [], value);
  return { path, message };
}
