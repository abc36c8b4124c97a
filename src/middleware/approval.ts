/**
 * `ApprovalMiddleware`: pause before each call of the listed tools and ask a person.
 *
 * @module
 */
import type { z } from "zod";
import { ToolDeniedError, ValueError } from "../errors/index.js";
import { isPlainObject, type JsonObject, type JsonValue } from "../json/index.js";
import { lazyObject, memo } from "../lazy.js";
import { zod } from "../zod-runtime.js";
import type { Middleware, ToolMiddlewareContext } from "./types.js";

/** What the person is asked: the value of the approval interrupt. All JSON. */
export interface ApprovalRequest {
  /** Name of the tool the model wants to call. */
  tool: string;
  /** The arguments it would run with (after the middleware listed before this one). */
  arguments: JsonObject;
  /** Id of the tool call, or `null` outside an agent. */
  toolCallId: string | null;
  /** The question (the `question` option). */
  question: string;
}

/**
 * The answers an approval accepts, checked by {@link ApprovalAnswer}:
 *
 * | answer | what happens |
 * | --- | --- |
 * | `"yes"`, `true`, `{ approved: true }` | the call runs with the arguments the model gave |
 * | `{ approved: true, arguments: { ... } }` | the call runs with these arguments instead (they replace the model's, whole); the `ToolMessage` records them in `arguments` |
 * | `"no"`, `false`, `{ approved: false }` | the call is denied: `ToolDeniedError`, and the model gets the tool message `"Tool call denied by a person"` |
 * | `{ approved: false, reason: "..." }` | denied; the model gets `"Tool call denied by a person: <reason>"` |
 *
 * `arguments: null` and `reason: null` count as left out. Objects are strict: any other key
 * is refused.
 */
export type ApprovalAnswer =
  | "yes"
  | "no"
  | boolean
  | { approved: true; arguments?: JsonObject | null }
  | { approved: false; reason?: string | null };

/** The schemas of answers, built on first use (no zod at import: see zod-runtime.ts). */
const schemas = memo(() => {
  const z = zod();
  const object = z.discriminatedUnion("approved", [
    z.strictObject({
      approved: z.literal(true),
      arguments: z.record(z.string(), z.json()).nullable().optional(),
    }),
    z.strictObject({
      approved: z.literal(false),
      reason: z.string().nullable().optional(),
    }),
  ]);
  const answer = z.union([
    z.enum(["yes", "no"]),
    z.boolean(),
    object,
  ]) as unknown as z.ZodType<ApprovalAnswer>;
  return { object, answer };
});

/**
 * The zod schema of an {@link ApprovalAnswer} (built on first use).
 * @example ApprovalAnswer.safeParse({ approved: false, reason: "too much" }).success // true
 */
export const ApprovalAnswer: z.ZodType<ApprovalAnswer> = lazyObject(() => schemas().answer);

/** Options of {@link ApprovalMiddleware}. */
export interface ApprovalOptions {
  /** Names of the tools whose calls need a person's approval; at least one. */
  tools: readonly string[];
  /**
   * The question put in the interrupt: a string, or a function of the tool name and the
   * arguments. Default `Run tool "<tool>" with <arguments as JSON>?`.
   */
  question?: string | ((tool: string, args: JsonObject) => string);
}

/** The middleware made by {@link ApprovalMiddleware}. */
export interface ApprovalMiddleware extends Middleware {
  readonly name: "ApprovalMiddleware";
  /** Names of the tools it asks about. */
  readonly toolNames: readonly string[];
  /** Asks, for a listed tool; returns edited arguments or nothing, or throws `ToolDeniedError`. */
  beforeTool(args: JsonObject, ctx: ToolMiddlewareContext): JsonObject | undefined;
}

/** The reason sent to the model for a call a person denied. */
export const DENIED_BY_PERSON = "Tool call denied by a person";

const EXPECTED =
  'answer "yes", "no", true, false, { approved: true }, { approved: true, arguments: { ... } } or { approved: false, reason: "..." }';

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  }
  if (issue.path.length === 0) return issue.message;
  const key = issue.path.map(String).join(".");
  if (key === "approved") return `key "approved" must be true or false`;
  return `key "${key}": ${issue.message}`;
}

/**
 * Check a person's answer and turn it into a decision.
 * @throws ValueError naming what is wrong.
 */
function decide(
  answer: unknown,
  ctx: ToolMiddlewareContext,
): { approved: true; arguments: JsonObject | null } | { approved: false; reason: string | null } {
  if (answer === "yes" || answer === true) return { approved: true, arguments: null };
  if (answer === "no" || answer === false) return { approved: false, reason: null };
  const where = `tool "${ctx.tool.name}"${ctx.toolCallId === null ? "" : ` (call "${ctx.toolCallId}")`}`;
  if (!isPlainObject(answer)) {
    throw new ValueError(
      `ApprovalMiddleware: invalid answer for ${where}: got ${JSON.stringify(answer) ?? typeof answer}; ${EXPECTED}`,
    );
  }
  const parsed = schemas().object.safeParse(answer);
  if (!parsed.success) {
    throw new ValueError(
      `ApprovalMiddleware: invalid answer for ${where}: ${parsed.error.issues.map(describeIssue).join("; ")}; ${EXPECTED}`,
    );
  }
  const a = parsed.data;
  if (a.approved) return { approved: true, arguments: (a.arguments ?? null) as JsonObject | null };
  return { approved: false, reason: a.reason ?? null };
}

/**
 * Pause before each call of the listed tools and ask a person.
 *
 * Its `beforeTool` hook does nothing for other tools. For a listed tool it calls
 * `ctx.toolContext.interrupt(request)` with an {@link ApprovalRequest}
 * `{ tool, arguments, toolCallId, question }`, so the run pauses with
 * status `"interrupted"` (`runAgent` raises `RunInterruptedError`). The interrupt has the tool
 * context's default key: in an agent, `"<taskId>#<toolCallId>"` (the first interrupt of the
 * call), so each call of a turn gets its own key and its own answer. Resume with
 * `graph.invoke(null, { threadId, resume: { [key]: answer } })`; the answer is read as an
 * {@link ApprovalAnswer}:
 *
 * - approved (`"yes"`, `true`, `{ approved: true }`): the call runs;
 * - approved with `arguments`: the call runs with those arguments (they replace the model's
 *   whole and are still validated by the tool's input schema); the agent's `ToolMessage`
 *   records them in `arguments`;
 * - denied (`"no"`, `false`, `{ approved: false, reason }`): throws `ToolDeniedError` with the
 *   reason `"Tool call denied by a person"` or `"Tool call denied by a person: <reason>"`,
 *   which the agent sends to the model as the call's tool message. The tool does not run.
 *
 * An answered call is not asked again when its task runs again (the answer is kept by the
 * thread). Calls of one model turn run concurrently, so the pause collects the approvals of
 * every listed call of the turn at once; calls that need no approval finish and are not run
 * again on resume.
 *
 * @param options - `{ tools, question }`.
 * @throws ValueError when `tools` is not a non-empty array of names, or `question` is neither a
 *   string nor a function. When a call is checked: `ValueError` for an answer of another shape,
 *   naming the tool, the call and the key at fault.
 * @example
 * ```ts
 * const agent = buildReactAgent(chat, {
 *   tools: [refund, lookupOrder],
 *   middleware: [ApprovalMiddleware({ tools: ["refund"] })],
 *   stateStore: new MemoryStateStore(),
 * });
 * const paused = await agent.invoke(input, { threadId: "t-1" }); // status "interrupted"
 * await agent.invoke(null, { threadId: "t-1", resume: { [paused.interrupts[0]!.key]: "yes" } });
 * ```
 */
export function ApprovalMiddleware(options: ApprovalOptions): ApprovalMiddleware {
  const tools = (options as Partial<ApprovalOptions> | null | undefined)?.tools;
  if (
    !Array.isArray(tools) ||
    tools.length === 0 ||
    !tools.every((t) => typeof t === "string" && t !== "")
  ) {
    throw new ValueError(
      'ApprovalMiddleware: tools must be a non-empty array of tool names, such as { tools: ["refund"] }',
    );
  }
  const question = options.question;
  if (question !== undefined && typeof question !== "string" && typeof question !== "function") {
    throw new ValueError(
      `ApprovalMiddleware: question must be a string or a function (tool, args) => string, got ${typeof question}`,
    );
  }
  const listed = new Set<string>(tools);
  const ask = (tool: string, args: JsonObject): string => {
    if (typeof question === "string") return question;
    if (typeof question === "function") {
      const q = question(tool, args);
      if (typeof q !== "string") {
        throw new ValueError(
          `ApprovalMiddleware: the question function returned ${q === null ? "null" : typeof q} for tool "${tool}", not a string`,
        );
      }
      return q;
    }
    return `Run tool "${tool}" with ${JSON.stringify(args)}?`;
  };

  return {
    name: "ApprovalMiddleware",
    toolNames: [...listed],
    beforeTool(args: JsonObject, ctx: ToolMiddlewareContext): JsonObject | undefined {
      const tool = ctx.tool.name;
      if (!listed.has(tool)) return undefined;
      const request: ApprovalRequest = {
        tool,
        arguments: args,
        toolCallId: ctx.toolCallId,
        question: ask(tool, args),
      };
      const answer = ctx.toolContext.interrupt<JsonValue>(request as unknown as JsonValue);
      const decision = decide(answer, ctx);
      if (decision.approved) return decision.arguments ?? undefined;
      const reason =
        decision.reason === null || decision.reason === ""
          ? DENIED_BY_PERSON
          : `${DENIED_BY_PERSON}: ${decision.reason}`;
      throw new ToolDeniedError(`${reason} (tool "${tool}" was not called)`, {
        tool,
        ...(ctx.toolCallId === null ? {} : { toolCallId: ctx.toolCallId }),
        reason,
      });
    },
  };
}
