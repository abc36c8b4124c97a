/**
 * The zod schemas of chat data (content parts, reasoning parts, usage, tool calls, messages),
 * built together on first use: importing nodestep builds no schema and loads no zod (see
 * zod-runtime.ts). The exported `…Schema` constants of parts.ts, tool-call.ts and messages.ts
 * stand for these (lazy.ts); nodestep's own code reads them here.
 *
 * @module
 */
import type { z } from "zod";
import type { JsonObject } from "../json/index.js";
import { memo } from "../lazy.js";
import { buildWithoutCycleMemo } from "../zod-cycles.js";
import { zod } from "../zod-runtime.js";
import type { Message } from "./messages.js";
import type { ContentPart, MessageContent, Usage } from "./parts.js";

/**
 * The token counts of a {@link Usage}: the number keys of `chatSchemas().usage`, in its order
 * (chat/schemas.test.ts checks them against it), for nodestep's code that copies, checks or
 * adds up a usage key by key. Kept here, in a module `import("nodestep")` loads anyway, not in
 * a module of its own (one more file for the root import, test/packaging.test.ts).
 */
export const USAGE_TOKEN_KEYS = [
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "cachedInputTokens",
  "reasoningTokens",
] as const satisfies readonly (keyof Usage)[];

function urlOrData<T extends { url?: string; data?: string; mediaType?: string }>(
  part: T,
  ctx: z.RefinementCtx,
  kind: "image" | "file",
): void {
  const a = kind === "image" ? "An image" : "A file";
  if ((part.url === undefined) === (part.data === undefined)) {
    ctx.addIssue({ code: "custom", message: `${a} part needs exactly one of url and data` });
  } else if (part.data !== undefined && part.mediaType === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["mediaType"],
      message: `${a} part with data needs its mediaType`,
    });
  }
}

/** A `z.json()` schema, resolved (its inner schemas made now, under the memoizer setting of the build). */
function json(z: ReturnType<typeof zod>): ReturnType<typeof z.json> {
  const schema = z.json();
  schema.safeParse(null);
  return schema;
}

function build() {
  const z = zod();
  const cache = z.boolean().optional();
  const jsonObject = z.record(z.string(), json(z)) as unknown as z.ZodType<JsonObject>;
  const text = z.strictObject({ type: z.literal("text"), text: z.string(), cache });
  const image = z
    .strictObject({
      type: z.literal("image"),
      url: z.string().optional(),
      data: z.string().optional(),
      mediaType: z.string().optional(),
      cache,
    })
    .superRefine((p, ctx) => urlOrData(p, ctx, "image"));
  const file = z
    .strictObject({
      type: z.literal("file"),
      url: z.string().optional(),
      data: z.string().optional(),
      mediaType: z.string().optional(),
      name: z.string().optional(),
      cache,
    })
    .superRefine((p, ctx) => urlOrData(p, ctx, "file"));
  const audio = z.strictObject({
    type: z.literal("audio"),
    data: z.string(),
    format: z.string(),
    cache,
  });
  const contentPart = z.union([text, image, file, audio]) as unknown as z.ZodType<ContentPart>;
  const content = z
    .union([z.string(), z.array(contentPart)])
    .nullable()
    .default(null) as unknown as z.ZodType<MessageContent, unknown>;
  const reasoning = z.strictObject({
    type: z.literal("reasoning"),
    text: z.string(),
    provider: z.string(),
    data: jsonObject.nullable(),
  });
  const usage = z.looseObject({
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
    cachedInputTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
    raw: jsonObject.optional(),
  }) as unknown as z.ZodType<Usage>;

  const toolCall = z.strictObject({
    id: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), json(z)).default({}) as z.ZodType<JsonObject, unknown>,
    argumentsError: z.string().nullable().default(null),
  });

  const id = z.string().nullable().default(null);
  const system = z.strictObject({ type: z.literal("system"), id, content });
  const human = z.strictObject({ type: z.literal("human"), id, content });
  const ai = z.strictObject({
    type: z.literal("ai"),
    id,
    content,
    refusal: z.string().nullable().default(null),
    toolCalls: z.array(toolCall).default([]),
    reasoning: z.array(reasoning).default([]),
    finishReason: z.string().nullable().default(null),
    usage: usage.default({}),
    responseMetadata: jsonObject.optional(),
  });
  const tool = z.strictObject({
    type: z.literal("tool"),
    id,
    content,
    name: z.string().nullable().default(null),
    toolCallId: z.string().nullable().default(null),
    arguments: jsonObject.nullable().default(null),
  });
  const message = z.discriminatedUnion("type", [system, human, ai, tool]) as unknown as z.ZodType<
    Message,
    unknown
  >;
  return {
    text,
    image,
    file,
    audio,
    contentPart,
    content,
    reasoning,
    usage,
    toolCall,
    system,
    human,
    ai,
    tool,
    message,
  };
}

/** The chat schemas, built on the first call. */
export const chatSchemas = memo(build);

/**
 * The chat schemas built again without zod's cycle memoizer (zod-cycles.ts), for nodestep's
 * own parse of a messages update; each a twin of the one of {@link chatSchemas}.
 */
export const chatSchemasNoCycles = memo(() => buildWithoutCycleMemo(build));
