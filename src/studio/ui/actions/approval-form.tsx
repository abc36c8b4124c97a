/**
 * The answer to an approval (`ApprovalMiddleware`'s interrupt `{ tool, arguments, toolCallId,
 * question }`): the question, the tool's arguments as a form built from the tool's JSON
 * schema (editable), **Approve** (`{ approved: true }`, with `arguments` when they were
 * changed) and **Deny** with a reason (`{ approved: false, reason }`).
 */
import { useState } from "preact/hooks";
import type { Json, JsonSchema } from "../api.ts";
import { SchemaForm } from "./schema-form.tsx";
import { useFieldErrors } from "./use-field-errors.ts";

/** An approval request, as `ApprovalMiddleware` asks it. */
export interface ApprovalRequest {
  tool: string;
  arguments: { [key: string]: Json };
  toolCallId: string | null;
  question: string;
}

/** Whether an interrupt's value is an {@link ApprovalRequest}. */
export function isApprovalRequest(value: Json): value is Json & ApprovalRequest {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const args = value.arguments;
  return (
    typeof value.tool === "string" &&
    typeof value.question === "string" &&
    args !== null &&
    typeof args === "object" &&
    !Array.isArray(args)
  );
}

export interface ApprovalFormProps {
  request: ApprovalRequest;
  /** The JSON schema of the tool's arguments (`GET /api/tools`), or `null` when unknown. */
  schema: JsonSchema | null;
  disabled: boolean;
  onAnswer(answer: Json): void;
}

export function ApprovalForm({ request, schema, disabled, onAnswer }: ApprovalFormProps) {
  const [args, setArgs] = useState<Json>(request.arguments);
  const [reason, setReason] = useState("");
  const fields = useFieldErrors();
  const changed = JSON.stringify(args) !== JSON.stringify(request.arguments);
  return (
    <div class="approval" data-tool={request.tool}>
      <div class="question">{request.question}</div>
      <div class="muted">
        tool <b>{request.tool}</b>
        {request.toolCallId ? ` · call ${request.toolCallId}` : ""}
        {schema ? "" : " · no schema known: fields from the arguments"}
      </div>
      <SchemaForm schema={schema} value={args} onChange={setArgs} onError={fields.onError} />
      {fields.error ? <div class="field-error">{fields.error}</div> : null}
      <div class="answer-row">
        <button
          type="button"
          class="primary approve"
          disabled={disabled || fields.error !== null}
          onClick={() =>
            onAnswer(changed ? { approved: true, arguments: args } : { approved: true })
          }
        >
          {changed ? "Approve with these arguments" : "Approve"}
        </button>
        <input
          type="text"
          class="reason"
          name="reason"
          placeholder="Reason (sent to the model when you deny)"
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
        <button
          type="button"
          class="danger deny"
          disabled={disabled}
          onClick={() =>
            onAnswer(
              reason.trim() ? { approved: false, reason: reason.trim() } : { approved: false },
            )
          }
        >
          Deny
        </button>
      </div>
    </div>
  );
}
