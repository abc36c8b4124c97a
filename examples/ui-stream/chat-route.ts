// A useChat back end: one route handler (as in a Next.js app/api/chat/route.ts) that runs a
// refund agent and answers with the AI SDK UI message stream. Here it is served by node:http
// (as Express would, through writeUIStreamToNode) and called twice as useChat would: with the
// user's message, then with the person's approval.
import { createServer } from "node:http";
import {
  ApprovalMiddleware,
  buildReactAgent,
  MemoryStateStore,
  ScriptedChat,
  tool,
} from "nodestep";
import {
  UI_STREAM_MODES,
  type UIMessage,
  uiChatTurn,
  uiStreamResponse,
  writeUIStreamToNode,
} from "nodestep/ai-sdk-ui";
import { z } from "zod";

const refund = tool(({ orderId }) => `refunded ${orderId}`, {
  name: "refund",
  description: "Refund an order.",
  input: z.object({ orderId: z.string() }),
});
const agent = buildReactAgent(
  new ScriptedChat([
    {
      content: "Refunding.",
      toolCalls: [{ id: "c1", name: "refund", arguments: { orderId: "A-1" } }],
    },
    "A-1 is refunded.",
  ]),
  {
    tools: [refund],
    middleware: [ApprovalMiddleware({ tools: ["refund"], question: "Refund A-1?" })],
    stateStore: new MemoryStateStore(),
    stream: true,
  },
);

// The route handler: the same code in a Next.js route or a Hono route.
export async function POST(request: Request): Promise<Response> {
  const turn = uiChatTurn(await request.json());
  const events = agent.stream(turn.input, {
    threadId: turn.threadId ?? "default",
    resume: turn.resume,
    modes: UI_STREAM_MODES,
  });
  return uiStreamResponse(events, { messageId: turn.messageId ?? "answer-1" });
}

// Express-style: a Node server writing the Response.
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const request = new Request("http://localhost/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: Buffer.concat(chunks),
  });
  await writeUIStreamToNode(await POST(request), res);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as { port: number };

async function chat(messages: UIMessage[]): Promise<Record<string, unknown>[]> {
  const res = await fetch(`http://127.0.0.1:${port}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: "chat-1", messages, trigger: "submit-message" }),
  });
  console.log(res.status, res.headers.get("x-vercel-ai-ui-message-stream"));
  const text = await res.text();
  const data = text
    .split("\n\n")
    .filter((b) => b.startsWith("data: "))
    .map((b) => b.slice(6));
  console.log(`last event: ${data.at(-1)}`);
  return data.slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>);
}

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Refund A-1" }] };
const first = await chat([user]);
console.log(first.map((c) => c.type).join(" "));
const ask = first.find((c) => c.type === "tool-approval-request");
console.log(`asked: ${String(ask?.reason)} (approval ${String(ask?.approvalId)})`);

// What useChat sends after addToolApprovalResponse({ id, approved: true }).
const answered: UIMessage = {
  id: "answer-1",
  role: "assistant",
  parts: [
    {
      type: "tool-refund",
      toolCallId: "c1",
      state: "approval-responded",
      input: { orderId: "A-1" },
      approval: { id: String(ask?.approvalId), approved: true },
    },
  ],
};
const second = await chat([user, answered]);
console.log(second.map((c) => c.type).join(" "));
console.log(JSON.stringify(second.find((c) => c.type === "tool-output-available")));
console.log(JSON.stringify(second.at(-1)));
server.close();
