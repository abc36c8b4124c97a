// A streamed run that goes on when its client leaves ("onDisconnect": "continue"), and a client
// that rejoins it by run id from the last event id it saw (Last-Event-ID): the page reload of a
// chat, on `nodestep serve`'s API (docs/background-runs.md).
import { defineState, END, Graph, MemoryStateStore, node, START } from "nodestep";
import { createServer, listen } from "nodestep/server";
import { z } from "zod";

const State = defineState({ report: z.string().default("") });
let finishWriting = () => {};
const writing = new Promise<void>((resolve) => {
  finishWriting = resolve;
});
const research = node(
  (_: typeof State.State, ctx) => {
    ctx.emit({ progress: "researching" });
    return { report: "notes" };
  },
  { name: "research" },
);
const write = node(
  async (s: typeof State.State, ctx) => {
    ctx.emit({ progress: "writing" });
    await writing; // a long model call
    return { report: `${s.report} → report` };
  },
  { name: "write" },
);
const graph = new Graph(State, { name: "writer", stateStore: new MemoryStateStore() }).flow(
  START.to(research),
  research.to(write),
  write.to(END),
);

const server = await listen(createServer({ graph }), { port: 0 });
const api = `${server.url}/api/threads/t1`;

/** Read server-sent events until `stop` says so; each as `[id, event, data]`. */
async function read(res: Response, stop: (count: number) => boolean) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: Array<[string, string, unknown]> = [];
  let text = "";
  while (!stop(events.length)) {
    const r = await reader.read();
    if (r.done) break;
    text += decoder.decode(r.value, { stream: true });
    let at = text.indexOf("\n\n");
    while (at >= 0) {
      const block = text.slice(0, at);
      text = text.slice(at + 2);
      const field = (name: string) =>
        block
          .split("\n")
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      const data = field("data");
      if (data !== undefined)
        events.push([field("id") ?? "", field("event") ?? "", JSON.parse(data)]);
      at = text.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return events;
}

const leave = new AbortController();
const started = await fetch(`${api}/runs/stream`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ input: { report: "" }, onDisconnect: "continue" }),
  signal: leave.signal,
});
const runId = started.headers.get("x-nodestep-run-id");
const seen = await read(started, (n) => n === 4);
leave.abort(); // the page reloads
for (const [id, event] of seen) console.log(`${id} ${event}`);
const lastSeen = seen.at(-1)?.[0] ?? "0";

const listed = (await (await fetch(`${api}/runs`)).json()) as { runs: { status: string }[] };
console.log(`after the client left: ${listed.runs.map((r) => r.status).join(", ")}`);

const rejoined = await fetch(`${api}/runs/${runId}/stream`, {
  headers: { "last-event-id": lastSeen },
});
finishWriting();
for (const [id, event, data] of await read(rejoined, () => false)) {
  const d = data as { data?: unknown; status?: string; state?: unknown };
  console.log(`${id} ${event} ${JSON.stringify(event === "end" ? d.state : d.data)}`);
}
await server.close();
