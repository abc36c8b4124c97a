/**
 * An agent sent a picture and a PDF: the model thinks, calls a tool that returns a chart
 * image, and answers after thinking again. ScriptedChat plays the model (swap in
 * `new AnthropicChat({ model, cache: "auto" })` or `new OpenAIChat({ model, api: "responses" })`).
 *
 * Run: npx tsx examples/chat/picture-and-pdf.ts
 */
import {
  buildReactAgent,
  type ContentPart,
  HumanMessage,
  MemoryStateStore,
  ScriptedChat,
  textOf,
  tool,
  toolContent,
} from "nodestep";
import { z } from "zod";

// A 1×1 PNG photo of a shelf and a one-page PDF invoice, base64.
const PHOTO =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const INVOICE = Buffer.from("%PDF-1.4\n% invoice: 3 lamps, 120 EUR\n%%EOF\n").toString("base64");

const renderChart = tool(
  async ({ month }) =>
    toolContent([
      { type: "text", text: `Sales chart of ${month}:` },
      { type: "image", data: PHOTO, mediaType: "image/png" },
    ]),
  {
    name: "render_chart",
    description: "Render the sales chart of a month as a PNG image.",
    input: z.object({ month: z.string() }),
  },
);

const chat = new ScriptedChat([
  {
    reasoning: [
      {
        type: "reasoning",
        text: "The invoice is for lamps; compare with the March sales chart.",
        provider: "anthropic",
        data: { signature: "sig-1" },
      },
    ],
    toolCalls: [{ id: "toolu_1", name: "render_chart", arguments: { month: "March" } }],
    usage: { inputTokens: 1830, outputTokens: 64, totalTokens: 1894, cachedInputTokens: 1536 },
  },
  (request) => {
    const result = request.messages.at(-1);
    const parts = Array.isArray(result?.content) ? result.content : [];
    return {
      reasoning: [
        {
          type: "reasoning",
          text: `The chart came back as ${parts.map((p) => p.type).join(" + ")}.`,
          provider: "anthropic",
          data: { signature: "sig-2" },
        },
      ],
      content: "The shelf holds the 3 lamps of the invoice (120 EUR); March was their best month.",
    };
  },
]);

const agent = buildReactAgent(chat, { tools: [renderChart], stateStore: new MemoryStateStore() });
const question: ContentPart[] = [
  { type: "text", text: "What is on the photo, and does it match the invoice?" },
  { type: "image", data: PHOTO, mediaType: "image/png" },
  { type: "file", data: INVOICE, mediaType: "application/pdf", name: "invoice.pdf" },
];
const { state } = await agent.invoke(
  { messages: [HumanMessage({ content: question })] },
  { threadId: "shop" },
);

for (const m of state.messages) {
  const parts = Array.isArray(m.content) ? m.content.map((p) => p.type).join("+") : "text";
  const thinking = m.type === "ai" ? m.reasoning.map((r) => ` [thought: ${r.text}]`).join("") : "";
  const calls =
    m.type === "ai"
      ? m.toolCalls.map((c) => ` -> ${c.name}(${JSON.stringify(c.arguments)})`).join("")
      : "";
  console.log(`${m.type} (${parts})${thinking}${calls}: ${textOf(m.content) ?? ""}`);
}
console.log(
  `model saw in its second call: ${chat.requests[1]!.messages.map((m) => m.type).join(", ")}`,
);
const first = state.messages[1];
console.log(
  `usage of the first call: ${JSON.stringify(first?.type === "ai" ? first.usage : null)}`,
);
console.log(`answer: ${state.finalText}`);
