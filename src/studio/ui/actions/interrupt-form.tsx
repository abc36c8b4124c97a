/**
 * The answer to any other interrupt, built from its value: the question (its `question` field,
 * or the value when it is text), the value's other fields shown as a tree, and the ways to
 * answer: one button per entry of an `options` (or `choices`) list; a form from a `schema`
 * field (a JSON schema); otherwise **Yes** (`true`), **No** (`false`) and a free answer (read as
 * JSON when it parses, as text otherwise).
 */
import { useState } from "preact/hooks";
import type { Json, JsonSchema } from "../api.ts";
import { JsonTree } from "../state/json-tree.tsx";
import { SchemaForm } from "./schema-form.tsx";
import { useFieldErrors } from "./use-field-errors.ts";

type Obj = { [key: string]: Json };
const isObj = (v: Json | undefined): v is Obj =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);

/** The question of an interrupt's value, and the rest of it. */
export function questionOf(value: Json): { question: string | null; rest: Obj | null } {
  if (typeof value === "string") return { question: value, rest: null };
  if (!isObj(value)) return { question: null, rest: null };
  const { question, options: _o, choices: _c, schema: _s, ...rest } = value;
  return {
    question: typeof question === "string" ? question : null,
    rest: Object.keys(rest).length ? rest : null,
  };
}

export interface InterruptFormProps {
  value: Json;
  disabled: boolean;
  onAnswer(answer: Json): void;
}

export function InterruptForm({ value, disabled, onAnswer }: InterruptFormProps) {
  const { question, rest } = questionOf(value);
  const options = isObj(value) ? (value.options ?? value.choices) : undefined;
  const schema = isObj(value) && isObj(value.schema) ? (value.schema as JsonSchema) : null;
  const [text, setText] = useState("");
  const [formValue, setFormValue] = useState<Json>(
    schema?.default ?? (schema?.type === "object" ? {} : null),
  );
  const fields = useFieldErrors();
  return (
    <div class="interrupt-form">
      {question !== null ? <div class="question">{question}</div> : null}
      {question === null ? <JsonTree value={value} open={2} /> : null}
      {rest ? <JsonTree value={rest} open={2} /> : null}
      {Array.isArray(options) ? (
        <div class="answer-row">
          {options.map((o) => (
            <button
              type="button"
              key={JSON.stringify(o)}
              class="option"
              disabled={disabled}
              onClick={() => onAnswer(o)}
            >
              {typeof o === "string" ? o : JSON.stringify(o)}
            </button>
          ))}
        </div>
      ) : schema ? (
        <>
          <SchemaForm
            schema={schema}
            value={formValue}
            onChange={setFormValue}
            onError={fields.onError}
          />
          {fields.error ? <div class="field-error">{fields.error}</div> : null}
          <button
            type="button"
            class="primary answer-send"
            disabled={disabled || fields.error !== null}
            onClick={() => onAnswer(formValue)}
          >
            Send
          </button>
        </>
      ) : (
        <div class="answer-row">
          <button
            type="button"
            class="primary answer-yes"
            disabled={disabled}
            onClick={() => onAnswer(true)}
          >
            Yes
          </button>
          <button
            type="button"
            class="answer-no"
            disabled={disabled}
            onClick={() => onAnswer(false)}
          >
            No
          </button>
          <input
            type="text"
            class="answer-input"
            placeholder="or another answer (JSON or text)"
            value={text}
            onInput={(e) => setText((e.target as HTMLInputElement).value)}
          />
          <button
            type="button"
            class="answer-send"
            disabled={disabled || text.trim() === ""}
            onClick={() => {
              let answer: Json;
              try {
                answer = JSON.parse(text) as Json;
              } catch {
                answer = text;
              }
              onAnswer(answer);
            }}
          >
            Send
          </button>
        </div>
      )}
    </div>
  );
}
