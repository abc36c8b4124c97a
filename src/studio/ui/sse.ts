/**
 * Read a `text/event-stream` answer: calls `onEvent(name, data)` for each event with a
 * `data:` field (its lines joined and parsed as JSON), in order, until the stream ends.
 * Comment lines (`: heartbeat`) and `id:` / `retry:` fields are skipped.
 */
import type { Json } from "./api.ts";

export async function readSse(
  res: Response,
  onEvent: (event: string, data: Json) => void,
): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break;
    buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, "\n");
    let at = buffer.indexOf("\n\n");
    while (at >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(event, JSON.parse(data.join("\n")) as Json);
      at = buffer.indexOf("\n\n");
    }
  }
}
