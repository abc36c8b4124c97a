/**
 * Errors of tool calls: a failed call, several failed calls, a denied call, arguments or a
 * result that do not match the schema.
 */

import { NodestepError, type NodestepErrorOptions } from "./base.js";

/** A tool call failed: unknown tool, invalid arguments, or the tool threw (`cause`). */
export class ToolExecutionError extends NodestepError {
  /** Name of the tool the model asked for. */
  readonly tool: string;
  /** Id of the tool call. */
  readonly toolCallId: string | undefined;
  constructor(
    message: string,
    options: NodestepErrorOptions & { tool: string; toolCallId?: string },
  ) {
    super(message, options);
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
  }
}

/** Several tool calls of one model turn failed with `toolErrors: "raise"`; `errors` holds each, in call order. */
export class ToolGroupExecutionError extends NodestepError {
  readonly errors: readonly Error[];
  constructor(message: string, options: NodestepErrorOptions & { errors: readonly Error[] }) {
    super(message, options);
    this.errors = options.errors;
  }
}

/** A tool call was denied (by a person through approval, or by a tool limit); it reaches the model as a tool message with `reason`. */
export class ToolDeniedError extends NodestepError {
  readonly tool: string;
  readonly toolCallId: string | undefined;
  readonly reason: string;
  constructor(
    message: string,
    options: NodestepErrorOptions & { tool: string; toolCallId?: string; reason?: string },
  ) {
    super(message, options);
    this.tool = options.tool;
    this.toolCallId = options.toolCallId;
    this.reason = options.reason ?? message;
  }
}

/** Arguments or a result do not match a tool's schema (from `callTool`); `issues` lists each problem. */
export class ValidationError extends NodestepError {
  readonly issues: readonly { path: (string | number)[]; message: string }[];
  constructor(
    message: string,
    options: NodestepErrorOptions & {
      issues: readonly { path: (string | number)[]; message: string }[];
    },
  ) {
    super(message, options);
    this.issues = options.issues;
  }
}
