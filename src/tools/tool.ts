/**
 * `tool()`: turn a function into a {@link Tool} with a zod input schema, an optional output
 * schema, and the JSON schemas the model sees.
 *
 * @module
 */
import type { z } from "zod";
import type { ToolDefinition } from "../chat/types.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { isZodType, zod } from "../zod-runtime.js";
import type { AnyTool, Tool, ToolContext, ToolFunction } from "./types.js";

/** Tool names the models accept: letters, digits, `_` and `-`, 1 to 64 characters. */
export const TOOL_NAME_PATTERN: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** The input schema of a tool without arguments: a strict empty object. */
export type NoArguments = z.ZodObject<{}, z.core.$strict>;

/**
 * Options of {@link tool}.
 *
 * @typeParam S - the zod object schema of the arguments.
 * @typeParam O - the zod schema of the result, or `undefined` for any JSON value.
 */
export interface ToolOptions<
  S extends z.ZodObject = NoArguments,
  O extends z.ZodType | undefined = undefined,
> {
  /** Name shown to the model; defaults to `fn.name`. Must match `^[a-zA-Z0-9_-]{1,64}$`. An inline arrow function has no name, so it needs one. */
  name?: string;
  /** Description sent to the model; required and non-blank. */
  description: string;
  /** Zod object schema of the arguments; made strict (unknown arguments are rejected). Omit it only for a tool without arguments. */
  input?: S;
  /** Zod schema the result is validated against; any JSON value when omitted. */
  output?: O;
}

/**
 * Turn a function into a tool.
 *
 * `fn(args, ctx)` receives the arguments parsed by `options.input` and a {@link ToolContext};
 * it may be sync or async. The tool is a plain object with `kind: "tool"`; run it with
 * `callTool` (validation and middleware) or give it to an agent.
 *
 * Rules:
 * - `input` is a zod object schema; the tool uses a strict copy of it (unknown arguments are
 *   rejected and its JSON schema says `additionalProperties: false`). Its metadata
 *   (`.describe()`, `.meta()`) is kept. Omitted: `z.strictObject({})`, a tool without arguments.
 * - `output` validates the result. Omitted: any JSON value. A function that returns nothing
 *   returns `null`.
 * - `inputSchema()` is `z.toJSONSchema(input, { io: "input" })` without `$schema`, with a
 *   `title` of the PascalCase tool name + `"Input"` (`check_stock` → `"CheckStockInput"`)
 *   unless the schema has a title of its own. The `ToolContext` never appears in it.
 * - `supportsContext()` is true when `fn` declares a second parameter (`fn.length >= 2`).
 *
 * @param fn - the function to call.
 * @param options - `{ name, description, input, output }`.
 * @returns the tool.
 * @throws TypeError when `fn` is not a function, the name is missing (an anonymous function)
 *   or does not match `^[a-zA-Z0-9_-]{1,64}$`, the description is missing or blank, `input`
 *   is not a zod object schema, `output` is not a zod schema, or a schema cannot be written
 *   as JSON schema (such as `z.date()`).
 * @example
 * ```ts
 * const checkStock = tool(({ sku }, ctx: ToolContext<Inventory>) => ctx.context.stock[sku] ?? 0, {
 *   name: "check_stock",
 *   description: "Return how many items of a product are in stock.",
 *   input: z.object({ sku: z.string() }),
 *   output: z.number().int(),
 * });
 * checkStock.inputSchema();
 * // { type: "object", properties: { sku: { type: "string" } }, required: ["sku"],
 * //   additionalProperties: false, title: "CheckStockInput" }
 * ```
 */
export function tool<
  S extends z.ZodObject = NoArguments,
  O extends z.ZodType = z.ZodType,
  C = unknown,
>(
  fn: (args: z.output<S>, ctx: ToolContext<C>) => z.input<O> | Promise<z.input<O>>,
  options: ToolOptions<S, O> & { output: O },
): Tool<z.output<S>, z.output<O>, C>;
export function tool<S extends z.ZodObject = NoArguments, C = unknown>(
  fn: (args: z.output<S>, ctx: ToolContext<C>) => unknown,
  options: ToolOptions<S, undefined>,
): Tool<z.output<S>, JsonValue, C>;
export function tool(fn: unknown, options: unknown): Tool<JsonObject, unknown, unknown> {
  return makeTool(fn, options);
}

function makeTool(fn: unknown, options: unknown): Tool<JsonObject, unknown, unknown> {
  const opts = (typeof options === "object" && options !== null ? options : null) as {
    name?: unknown;
    description?: unknown;
    input?: unknown;
    output?: unknown;
  } | null;
  const givenName = opts !== null && typeof opts.name === "string" ? opts.name : null;
  const label = givenName !== null ? `tool() "${givenName}"` : "tool()";
  if (typeof fn !== "function") {
    throw new TypeError(`${label}: the first argument must be a function, got ${describe(fn)}`);
  }
  if (opts === null) {
    throw new TypeError(
      `${label}: the second argument must be an options object { name, description, input, output }, got ${describe(options)}`,
    );
  }
  let name: string;
  if (opts.name === undefined) {
    if (typeof fn.name !== "string" || fn.name === "") {
      throw new TypeError(
        'tool(): the function is anonymous (an inline arrow function has no name); pass a name: tool(fn, { name: "my_tool", ... })',
      );
    }
    name = fn.name;
  } else if (typeof opts.name !== "string") {
    throw new TypeError(`tool(): name must be a string, got ${describe(opts.name)}`);
  } else {
    name = opts.name;
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `tool(): invalid tool name ${JSON.stringify(name)}: it must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64)`,
    );
  }
  if (opts.description === undefined || opts.description === null) {
    throw new TypeError(
      `Tool "${name}" has no description; pass { description: "..." } (it is sent to the model)`,
    );
  }
  if (typeof opts.description !== "string") {
    throw new TypeError(
      `Tool "${name}": description must be a string, got ${describe(opts.description)}`,
    );
  }
  if (opts.description.trim() === "") {
    throw new TypeError(
      `Tool "${name}" has a blank description; describe what the tool does (it is sent to the model)`,
    );
  }
  const description = opts.description;

  let input: z.ZodObject;
  if (opts.input === undefined) {
    input = zod().strictObject({});
  } else if (isZodType(opts.input, "ZodObject")) {
    input = strictCopy(opts.input as z.ZodObject);
  } else {
    throw new TypeError(
      `Tool "${name}": input must be a zod object schema such as z.object({ sku: z.string() }), got ${describeSchema(opts.input)}`,
    );
  }
  let output: z.ZodType | null;
  if (opts.output === undefined || opts.output === null) {
    output = null;
  } else if (isZodType(opts.output)) {
    output = opts.output as z.ZodType;
  } else {
    throw new TypeError(
      `Tool "${name}": output must be a zod schema such as z.string(), got ${describeSchema(opts.output)}`,
    );
  }

  const inputSchema = toJsonSchema(name, "input", input, "input");
  if (typeof inputSchema.title !== "string") inputSchema.title = `${pascalCase(name)}Input`;
  const outputSchema = output === null ? {} : toJsonSchema(name, "output", output, "output");
  const inputJson = JSON.stringify(inputSchema);
  const outputJson = JSON.stringify(outputSchema);
  const f = fn as ToolFunction<JsonObject, unknown, unknown>;

  return {
    kind: "tool",
    name,
    description,
    input: input as unknown as z.ZodType<JsonObject>,
    output,
    fn: f,
    inputSchema: () => JSON.parse(inputJson) as JsonObject,
    inputSchemaJson: () => inputJson,
    outputSchema: () => JSON.parse(outputJson) as JsonObject,
    outputSchemaJson: () => outputJson,
    supportsContext: () => f.length >= 2,
    definition: (): ToolDefinition => ({
      name,
      description,
      inputSchema: JSON.parse(inputJson) as JsonObject,
    }),
  };
}

/**
 * Whether `value` is a tool made by {@link tool} (or an object of the same shape).
 * @example isTool(checkStock) // true
 */
export function isTool(value: unknown): value is AnyTool {
  if (typeof value !== "object" || value === null) return false;
  const t = value as Record<string, unknown>;
  return (
    t.kind === "tool" &&
    typeof t.name === "string" &&
    typeof t.fn === "function" &&
    isZodType(t.input) &&
    typeof t.definition === "function"
  );
}

/** A strict copy of an object schema that keeps its registered metadata (description, title…). */
function strictCopy(schema: z.ZodObject): z.ZodObject {
  const strict = schema.strict();
  const meta = zod().globalRegistry.get(schema);
  return meta === undefined ? strict : strict.meta(meta);
}

function toJsonSchema(
  name: string,
  which: "input" | "output",
  schema: z.ZodType,
  io: "input" | "output",
): JsonObject {
  let js: Record<string, unknown>;
  try {
    js = zod().toJSONSchema(schema, { io }) as Record<string, unknown>;
  } catch (e) {
    throw new TypeError(
      `Tool "${name}": the ${which} schema cannot be written as JSON schema (${(e as Error).message}); use JSON types only`,
      { cause: e },
    );
  }
  const { $schema: _drop, ...rest } = js;
  return rest as JsonObject;
}

/** `check_stock` → `CheckStock`, `get-order` → `GetOrder`, `lookupOrder` → `LookupOrder`. */
function pascalCase(name: string): string {
  return name
    .split(/[_-]+/)
    .filter((p) => p !== "")
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");
}

function describeSchema(value: unknown): string {
  if (isZodType(value)) return `a zod ${(value as z.ZodType).def.type} schema`;
  if (typeof value === "object" && value !== null && "_def" in value && !("_zod" in value)) {
    return 'a zod 3 schema; nodestep needs zod 4 schemas (npm install zod@^4, or import { z } from "zod/v4" with zod 3.25)';
  }
  return describe(value);
}

/** A short description of a value's kind for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
    return ctor && ctor !== "Object" ? `a ${ctor} instance` : "an object";
  }
  if (typeof value === "string") return `a string (${JSON.stringify(value)})`;
  return `a ${typeof value}`;
}
