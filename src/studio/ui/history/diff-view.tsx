/** One entry's change of the state: a line per changed path (added, removed, from → to). */
import type { Json, JsonChange } from "../api.ts";

/** A JSON value in one short line (strings as they are), at most `max` characters. */
export function shortJson(value: Json, max = 120): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const one = text.replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `["messages", 2, "content"]` → `messages[2].content`; the root is `(state)`. */
export function pathText(path: (string | number)[]): string {
  if (path.length === 0) return "(state)";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/** A message added to the state in one line: `ai: Hello` / `tool lookup: …`. */
function messageLine(value: Json): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const type = value.type;
  if (type !== "ai" && type !== "human" && type !== "tool" && type !== "system") return null;
  const content = value.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((p) => (p && typeof p === "object" && !Array.isArray(p) ? (p.text ?? "") : ""))
            .join("")
        : "";
  const calls = Array.isArray(value.toolCalls)
    ? value.toolCalls.map((c) =>
        c && typeof c === "object" && !Array.isArray(c) ? String(c.name) : "?",
      )
    : [];
  const who = type === "tool" ? `tool ${String(value.name ?? "")}` : String(type);
  const parts = [
    text ? shortJson(String(text), 100) : "",
    calls.length ? `asks for ${calls.join(", ")}` : "",
  ];
  return `${who}: ${parts.filter(Boolean).join(" · ")}`;
}

export function DiffView({ diff, truncated }: { diff: JsonChange[]; truncated: boolean }) {
  if (diff.length === 0) return <p class="muted diff-none">no change of the state</p>;
  return (
    <ul class="diff">
      {diff.map((c) => (
        <li key={`${c.op}:${pathText(c.path)}`} class={`change op-${c.op}`}>
          <span class="change-op">{c.op === "add" ? "+" : c.op === "remove" ? "−" : "~"}</span>{" "}
          <span class="change-path">{pathText(c.path)}</span>{" "}
          {c.op === "replace" ? (
            <span class="change-value">
              <span class="from">{shortJson(c.from)}</span> →{" "}
              <span class="to">{shortJson(c.to)}</span>
            </span>
          ) : (
            <span class="change-value">{messageLine(c.value) ?? shortJson(c.value)}</span>
          )}
        </li>
      ))}
      {truncated ? <li class="muted">… more changes not shown</li> : null}
    </ul>
  );
}
