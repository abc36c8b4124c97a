/**
 * A JSON value as a tree: objects and arrays fold (`<details>`), open to depth `open`;
 * strings, numbers, booleans and null shown as values. Each row carries `data-path` (the
 * keys from the root, joined with `.`).
 */
import type { Json } from "../api.ts";

export interface JsonTreeProps {
  value: Json;
  /** Levels open at first; default 1. */
  open?: number;
  /** The key of this value in its parent (for `data-path`); none at the root. */
  path?: string;
  name?: string;
}

function summary(v: Json): string {
  if (Array.isArray(v)) return `[${v.length}]`;
  if (v !== null && typeof v === "object") return `{${Object.keys(v).length}}`;
  return "";
}

function Leaf({ value }: { value: Json }) {
  if (value === null) return <span class="v null">null</span>;
  if (typeof value === "string") return <span class="v string">"{value}"</span>;
  return <span class={`v ${typeof value}`}>{String(value)}</span>;
}

export function JsonTree({ value, open = 1, path = "", name }: JsonTreeProps) {
  const label = name === undefined ? null : <span class="k">{name}</span>;
  if (value === null || typeof value !== "object") {
    return (
      <div class="jt-row" data-path={path}>
        {label}
        {label ? ": " : null}
        <Leaf value={value} />
      </div>
    );
  }
  const entries: [string, Json][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  return (
    <details class="jt" data-path={path} open={open > 0}>
      <summary>
        {label}
        {label ? " " : null}
        <span class="muted">{summary(value)}</span>
      </summary>
      <div class="jt-children">
        {entries.map(([k, v]) => (
          <JsonTree key={k} value={v} name={k} path={path ? `${path}.${k}` : k} open={open - 1} />
        ))}
      </div>
    </details>
  );
}
