/**
 * A form for a JSON value, built from a JSON schema (or, without one, from the value's own
 * shape): an object becomes one labelled field per property (its `description` under it, `*`
 * for required ones), a string a text box, a number a number box, a boolean a checkbox, an
 * `enum` a menu; arrays and anything else a JSON text box. Each input carries `name` = the
 * property path joined with `.`. `onChange` gets each new value; `onError` says which field
 * holds no valid value (a JSON box that does not parse, an empty number box).
 */
import { useState } from "preact/hooks";
import type { Json, JsonSchema } from "../api.ts";

/** A schema for `value` read from its shape (a type per property; no descriptions). */
export function inferSchema(value: Json): JsonSchema {
  if (value === null) return {};
  if (Array.isArray(value)) return { type: "array" };
  if (typeof value === "object") {
    const properties: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(value)) properties[k] = inferSchema(v);
    return { type: "object", properties };
  }
  return { type: typeof value };
}

function typeOf(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== "null");
  return t;
}

export interface SchemaFormProps {
  schema: JsonSchema | null;
  value: Json;
  onChange(value: Json): void;
  /** Called with a field's path and an error text while it does not hold a valid value, `null` once it does. */
  onError?(path: string, error: string | null): void;
  /** Input name prefix (the property path). */
  path?: string;
}

/** A JSON text box for values the form has no input for. */
function JsonField({ path = "", value, onChange, onError }: Omit<SchemaFormProps, "schema">) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2) ?? "null");
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <textarea
        class="json-field"
        name={path}
        rows={Math.min(8, text.split("\n").length + 1)}
        value={text}
        onInput={(e) => {
          const t = (e.target as HTMLTextAreaElement).value;
          setText(t);
          try {
            onChange(JSON.parse(t) as Json);
            setError(null);
            onError?.(path, null);
          } catch (err) {
            const message = `${path || "value"}: not JSON (${(err as Error).message})`;
            setError(message);
            onError?.(path, message);
          }
        }}
      />
      {error ? <div class="field-error">{error}</div> : null}
    </>
  );
}

export function SchemaForm({ schema, value, onChange, onError, path = "" }: SchemaFormProps) {
  const s = schema ?? inferSchema(value);
  const type = typeOf(s);
  if (Array.isArray(s.enum)) {
    return (
      <select
        name={path}
        value={JSON.stringify(value)}
        onChange={(e) => onChange(JSON.parse((e.target as HTMLSelectElement).value) as Json)}
      >
        {s.enum.map((option) => (
          <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
            {typeof option === "string" ? option : JSON.stringify(option)}
          </option>
        ))}
      </select>
    );
  }
  if (
    type === "object" &&
    s.properties &&
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value)
  ) {
    const obj = value;
    const required = new Set(s.required ?? []);
    const keys = [...new Set([...Object.keys(s.properties), ...Object.keys(obj)])];
    return (
      <div class="schema-form">
        {keys.map((k) => {
          const sub = s.properties?.[k] ?? inferSchema(obj[k] ?? null);
          const subPath = path ? `${path}.${k}` : k;
          const field = (
            <SchemaForm
              schema={sub}
              value={obj[k] ?? sub.default ?? null}
              path={subPath}
              onError={onError}
              onChange={(v) => onChange({ ...obj, [k]: v })}
            />
          );
          return (
            <div class="form-field" key={k} data-field={subPath}>
              {typeOf(sub) === "boolean" ? (
                // biome-ignore lint/a11y/noLabelWithoutControl: the control is the field inside
                <label class="check">
                  {field} {sub.title ?? k}
                  {required.has(k) ? " *" : ""}
                </label>
              ) : (
                // biome-ignore lint/a11y/noLabelWithoutControl: the control is the field inside
                <label>
                  <span class="field-label">
                    {sub.title ?? k}
                    {required.has(k) ? " *" : ""}
                  </span>
                  {field}
                </label>
              )}
              {sub.description ? <div class="field-help">{sub.description}</div> : null}
            </div>
          );
        })}
      </div>
    );
  }
  if (type === "string" && (typeof value === "string" || value === null)) {
    return (
      <input
        type="text"
        name={path}
        value={value ?? ""}
        onInput={(e) => onChange((e.target as HTMLInputElement).value)}
      />
    );
  }
  if ((type === "number" || type === "integer") && (typeof value === "number" || value === null)) {
    return (
      <input
        type="number"
        name={path}
        step={type === "integer" ? 1 : "any"}
        value={value === null ? "" : String(value)}
        onInput={(e) => {
          const t = (e.target as HTMLInputElement).value;
          const n = Number(t);
          if (t.trim() === "" || !Number.isFinite(n))
            onError?.(path, `${path}: a number is needed`);
          else {
            onError?.(path, null);
            onChange(n);
          }
        }}
      />
    );
  }
  if (type === "boolean" && (typeof value === "boolean" || value === null)) {
    return (
      <input
        type="checkbox"
        name={path}
        checked={value === true}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
    );
  }
  return <JsonField path={path} value={value} onChange={onChange} onError={onError} />;
}
