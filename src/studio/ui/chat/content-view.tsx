/** A message's content: text (kept as written, line breaks included), images, files, audio. */
import type { Part } from "./messages.ts";

function src(p: Part): string | undefined {
  if (p.url) return p.url;
  if (p.data) return `data:${p.mediaType ?? "application/octet-stream"};base64,${p.data}`;
  return undefined;
}

export function ContentView({ content }: { content: string | Part[] | null }) {
  if (content === null || content === "") return null;
  if (typeof content === "string") return <div class="text">{content}</div>;
  return (
    <div class="parts">
      {content.map((p, i) => {
        const key = `${i}-${p.type}`;
        if (p.type === "text")
          return (
            <div key={key} class="text">
              {p.text}
            </div>
          );
        if (p.type === "image")
          return <img key={key} class="part-image" src={src(p)} alt={p.name ?? "image"} />;
        if (p.type === "audio")
          return (
            <audio
              key={key}
              class="part-audio"
              controls
              src={`data:audio/${p.format};base64,${p.data}`}
            >
              <track kind="captions" />
            </audio>
          );
        return (
          <a key={key} class="part-file" href={src(p)} download={p.name ?? "file"}>
            📎 {p.name ?? p.mediaType ?? "file"}
          </a>
        );
      })}
    </div>
  );
}
