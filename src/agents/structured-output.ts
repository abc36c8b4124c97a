/**
 * Structured output of `modelNode`: the output schema as JSON schema for the request, and the
 * final answer parsed and validated against it (`StructuredOutputError`, or a
 * `StructuredOutputEvent` with `onInvalid: "emit"`).
 *
 * @module
 */
import type { z } from "zod";
import { StructuredOutputError } from "../errors/index.js";
import type { NodeContext } from "../graph/context.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import { zod } from "../zod-runtime.js";

/** What `modelNode` does with a final answer that does not validate against `outputSchema`. */
export type OnInvalid = "raise" | "emit";

/**
 * Payload of the `"custom"` event that `modelNode(..., { onInvalid: "emit" })` sends when the
 * answer does not validate against the output schema. Plain JSON data.
 */
export interface StructuredOutputEvent {
  /** Always `"structured_output_error"`: tells this event from other `"custom"` events. */
  kind: "structured_output_error";
  /** Name of the output schema: its JSON schema `title` (zod `.meta({ title })`), else `"output"`. */
  schemaName: string;
  /** What is wrong: the answer is not JSON, or the validation issues. */
  message: string;
  /** The answer text that did not validate (`null` when the model sent none). */
  rawContent: string | null;
}

/**
 * The JSON schema of an output schema, without `$schema` (sent as the request's
 * `outputSchema`; its `title` names the schema in errors).
 * @throws TypeError naming `owner` when zod cannot write the schema as JSON schema.
 */
export function outputJsonSchema(owner: string, schema: z.ZodType): JsonObject {
  let json: JsonObject;
  try {
    json = zod().toJSONSchema(schema) as JsonObject;
  } catch (e) {
    throw new TypeError(
      `${owner}: outputSchema cannot be written as JSON schema: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const { $schema: _, ...rest } = json;
  return rest;
}

/**
 * The final answer `content` parsed as JSON and validated against `schema`.
 *
 * @returns the parsed value; `null` when it does not validate and `onInvalid` is `"emit"`
 *   (a `StructuredOutputEvent` is then sent as a `"custom"` event).
 * @throws StructuredOutputError (`schemaName`, `rawContent`, `cause`: the JSON or zod error)
 *   when it does not validate and `onInvalid` is `"raise"`; the message names the node and
 *   graph, and says whether the text was missing, not JSON, or off the schema (its issues).
 */
export function parseOutput(
  schema: z.ZodType,
  schemaName: string,
  content: string | null,
  onInvalid: OnInvalid,
  ctx: NodeContext,
): JsonValue | null {
  let message: string;
  let cause: unknown;
  if (content === null) {
    message = "the model sent no answer text";
  } else {
    let parsed: unknown;
    let json = true;
    try {
      parsed = JSON.parse(content);
    } catch (e) {
      json = false;
      cause = e;
    }
    if (!json) {
      message = `the answer is not JSON: ${(cause as Error).message}`;
    } else {
      const r = schema.safeParse(parsed);
      if (r.success) return r.data as JsonValue;
      cause = r.error;
      message = `the answer does not match the schema: ${r.error.issues
        .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
        .join("; ")}`;
    }
  }
  if (onInvalid === "emit") {
    const event: StructuredOutputEvent = {
      kind: "structured_output_error",
      schemaName,
      message,
      rawContent: content,
    };
    ctx.emit(event);
    return null;
  }
  throw new StructuredOutputError(
    `Node "${ctx.node}" of graph "${ctx.graphName}": the final answer does not parse into output schema "${schemaName}": ${message}`,
    { schemaName, rawContent: content, cause },
  );
}
