/**
 * A scripted planner: the demo's stand-in for a model when none is configured.
 *
 * It is a `ScriptedChat` response of the form `(request) => response`. It reads the question
 * (the last user message) and the tool results that came back since, and either asks for the
 * next tools or writes the answer from those results. It never reads the shop data itself:
 * like a model, it only knows what the tools told it. Rules, in order:
 *
 * 1. Order ids in the question ("A-1002"): `get_shipping_status` for each when the question is
 *    about where or when ("where", "ship", "deliver", "track", …), else `get_order`.
 * 2. "orders for Dana" / "Dana's orders": `list_orders_for_customer`.
 * 3. A stock question ("in stock", "left", "available", "how many"): `check_stock` with the
 *    words that remain once the question words are dropped ("blue mugs").
 * 4. Follow-ups: an order still "processing" gets `get_order`, then `check_stock` for each of
 *    its items, to explain what holds it up.
 * 5. When nothing is left to ask, the answer is written from the results.
 *
 * Every answer reports token usage, estimated from the text as a real model would count it,
 * so the usage totals and the studio's metrics have numbers to show.
 *
 * @module
 */
import type { JsonObject, Message } from "nodestep";
import {
  type ChatRequest,
  type ChatResponseInit,
  type ScriptedResponse,
  textOf,
} from "nodestep/chat";
import type { z } from "zod";
import {
  CustomerOrders,
  type OrderSummary,
  OrderSummary as OrderSummarySchema,
  ShippingStatus,
  StockReport,
} from "./tools.js";

/** One tool call of the current turn with what came back. */
interface Done {
  name: string;
  args: JsonObject;
  /** The tool's result, or `undefined` when it failed or has no answer yet. */
  result: unknown;
  /** The error text when the tool failed. */
  error: string | null;
}

const ORDER_ID = /\b[A-Za-z]-\d{4}\b/g;
const WHERE_WORDS = /\b(where|when|ship\w*|track\w*|deliver\w*|arriv\w*|status)\b/i;
const STOCK_WORDS = /\b(stock|left|available|inventory|how many)\b/i;
const CUSTOMER_FOR = /\borders?\s+(?:for|of|from|by)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)/;
const CUSTOMER_POSSESSIVE = /\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)'s\s+orders?\b/;
const QUESTION_WORDS = new Set(
  (
    "how many much do does did you we they have has any anything the a an of in is are there " +
    "still left available stock check can could i get buy some please what about for right " +
    "now currently store inventory more yet to your our tell me"
  ).split(" "),
);

/** A `ScriptedChat` response that plans tool calls and answers from their results. */
export const scriptedPlanner: ScriptedResponse = (request: ChatRequest): ChatResponseInit => {
  const { question, done, callsSoFar } = readTurn(request.messages);
  const next = nextCalls(question, done);
  const response: ChatResponseInit =
    next.length > 0
      ? {
          toolCalls: next.map((c, i) => ({
            id: `call_${callsSoFar + i + 1}`,
            name: c.name,
            arguments: c.args,
          })),
        }
      : { content: answer(done) };
  return { ...response, usage: estimatedUsage(request, response) };
};

/** The name the demo's scripted model answers as (and is priced by, in prices.json). */
export const PLANNER_MODEL = "scripted-planner";

/** About four characters a token, the usual rule of thumb for English text and JSON. */
const tokensOf = (chars: number) => Math.ceil(chars / 4);

/**
 * Token usage as a real model would report it for this call, estimated from the text: the
 * request's messages (their text and tool calls, 4 tokens of framing each) and its tools'
 * definitions in, the answer's text or tool calls out. Depends on the text alone (no ids), so
 * the same question always reports the same usage.
 */
export function estimatedUsage(
  request: ChatRequest,
  response: ChatResponseInit,
): { inputTokens: number; outputTokens: number; totalTokens: number } {
  let input = tokensOf(JSON.stringify(request.tools).length);
  for (const m of request.messages) {
    input += 4 + tokensOf((textOf(m.content) ?? "").length);
    if (m.type === "ai") input += tokensOf(JSON.stringify(m.toolCalls.map(callText)).length);
  }
  const text = typeof response.content === "string" ? response.content : "";
  const calls = response.toolCalls ?? [];
  const output =
    tokensOf(text.length) +
    (calls.length ? tokensOf(JSON.stringify(calls.map(callText)).length) : 0);
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}

const callText = (c: { name: string; arguments?: unknown }) => ({
  name: c.name,
  arguments: c.arguments,
});

/**
 * The planner as a `ScriptedChat` script: enough responses for any one question. Each reports
 * its estimated usage ({@link estimatedUsage}); the demo runs it as model
 * {@link PLANNER_MODEL}, which examples/demo/prices.json prices for the studio's cost column.
 */
export function plannerScript(maxModelCalls = 10): ScriptedResponse[] {
  return Array.from({ length: maxModelCalls }, () => scriptedPlanner);
}

function readTurn(messages: readonly Message[]): {
  question: string;
  done: Done[];
  callsSoFar: number;
} {
  let start = 0;
  let callsSoFar = 0;
  messages.forEach((m, i) => {
    if (m.type === "human") start = i;
    if (m.type === "ai") callsSoFar += m.toolCalls.length;
  });
  const question = textOf(messages[start]?.content) ?? "";
  const done: Done[] = [];
  const byId = new Map<string, Done>();
  for (const m of messages.slice(start + 1)) {
    if (m.type === "ai") {
      for (const call of m.toolCalls) {
        const d: Done = { name: call.name, args: call.arguments, result: undefined, error: null };
        done.push(d);
        byId.set(call.id, d);
      }
    } else if (m.type === "tool" && m.toolCallId !== null) {
      const d = byId.get(m.toolCallId);
      if (d) Object.assign(d, parseToolContent(textOf(m.content) ?? ""));
    }
  }
  return { question, done, callsSoFar };
}

/** `{"result": x}` → the result; `Tool error: Type: message` → the message. */
function parseToolContent(content: string): Pick<Done, "result" | "error"> {
  try {
    const parsed: unknown = JSON.parse(content);
    if (typeof parsed === "object" && parsed !== null && "result" in parsed) {
      return { result: parsed.result, error: null };
    }
  } catch {
    // not JSON: an error text
  }
  return { result: undefined, error: content.replace(/^Tool error: [\w.]+: /, "") };
}

interface PlannedCall {
  name: string;
  args: JsonObject;
}

function nextCalls(question: string, done: readonly Done[]): PlannedCall[] {
  if (done.length === 0) return firstCalls(question);
  const asked = (name: string, key: string, value: string) =>
    done.some((d) => d.name === name && d.args[key] === value);
  const next: PlannedCall[] = [];
  for (const d of done) {
    const shipping = parsed(ShippingStatus, d, "get_shipping_status");
    if (shipping?.status === "processing" && !asked("get_order", "orderId", shipping.orderId)) {
      next.push({ name: "get_order", args: { orderId: shipping.orderId } });
    }
    const order = parsed(OrderSummarySchema, d, "get_order");
    if (order?.status === "processing") {
      for (const item of order.items) {
        if (!asked("check_stock", "product", item.sku)) {
          next.push({ name: "check_stock", args: { product: item.sku } });
        }
      }
    }
  }
  return next;
}

function firstCalls(question: string): PlannedCall[] {
  const ids = [...new Set((question.match(ORDER_ID) ?? []).map((id) => id.toUpperCase()))];
  if (ids.length > 0) {
    const name = WHERE_WORDS.test(question) ? "get_shipping_status" : "get_order";
    return ids.map((orderId) => ({ name, args: { orderId } }));
  }
  const customer = CUSTOMER_FOR.exec(question) ?? CUSTOMER_POSSESSIVE.exec(question);
  if (customer?.[1]) return [{ name: "list_orders_for_customer", args: { customer: customer[1] } }];
  if (STOCK_WORDS.test(question)) {
    const product = question
      .replace(/[?!.,]/g, " ")
      .split(/\s+/)
      .filter((w) => w !== "" && !QUESTION_WORDS.has(w.toLowerCase()))
      .join(" ");
    if (product !== "") return [{ name: "check_stock", args: { product } }];
  }
  return [];
}

function parsed<T>(schema: z.ZodType<T>, d: Done, name: string): T | null {
  if (d.name !== name || d.result === undefined) return null;
  const r = schema.safeParse(d.result);
  return r.success ? r.data : null;
}

// ---------------------------------------------------------------- the answer

function answer(done: readonly Done[]): string {
  if (done.length === 0) {
    return "I can look up an order (ids look like A-1001), where it is, a customer's orders, and what is in stock. Which order or product do you mean?";
  }
  const orders = new Map<string, OrderSummary>();
  const stock = new Map<string, number>();
  for (const d of done) {
    const order = parsed(OrderSummarySchema, d, "get_order");
    if (order) orders.set(order.id, order);
    for (const m of parsed(StockReport, d, "check_stock")?.matches ?? [])
      stock.set(m.sku, m.quantity);
  }
  const explained = new Set<string>();
  const sentences: string[] = [];
  for (const d of done) {
    if (d.error !== null) {
      sentences.push(`Sorry, I found ${d.error}.`);
      continue;
    }
    const shipping = parsed(ShippingStatus, d, "get_shipping_status");
    if (shipping) {
      sentences.push(shippingSentence(shipping));
      explained.add(shipping.orderId);
      const order = orders.get(shipping.orderId);
      if (order?.status === "processing") sentences.push(holdUp(order, stock));
      continue;
    }
    const order = parsed(OrderSummarySchema, d, "get_order");
    if (order) {
      if (explained.has(order.id)) continue;
      sentences.push(orderSentence(order));
      if (order.status === "processing") sentences.push(holdUp(order, stock));
      continue;
    }
    const report = parsed(StockReport, d, "check_stock");
    if (report) {
      // Stock checked to explain an order is part of that order's sentence.
      if ([...orders.values()].some((o) => o.items.some((i) => i.sku === report.query))) continue;
      for (const m of report.matches) {
        sentences.push(
          `${m.name} (${m.sku}): ${m.quantity > 0 ? `${m.quantity} in stock` : "out of stock"}.`,
        );
      }
      continue;
    }
    const list = parsed(CustomerOrders, d, "list_orders_for_customer");
    if (list) sentences.push(listSentence(list));
  }
  return sentences.join(" ");
}

function shippingSentence(s: ShippingStatus): string {
  switch (s.status) {
    case "processing":
      return `Order ${s.orderId} has not shipped yet: it is still being prepared.`;
    case "shipped":
      return `Order ${s.orderId} shipped with ${s.carrier} on ${s.shippedAt} (tracking ${s.tracking}) and should arrive by ${s.estimatedDelivery}.`;
    case "delivered":
      return `Order ${s.orderId} was delivered on ${s.deliveredAt} (${s.carrier}, tracking ${s.tracking}).`;
    case "cancelled":
      return `Order ${s.orderId} was cancelled on ${s.cancelledAt}.`;
  }
}

const STATUS_TEXT = {
  processing: "is still being prepared",
  shipped: "is on its way",
  delivered: "was delivered",
  cancelled: "was cancelled",
} as const;

function orderSentence(o: OrderSummary): string {
  const items = o.items.map((i) => `${i.qty} × ${i.name}`).join("; ");
  return `Order ${o.id} (${o.customer}, placed ${o.placedAt}) ${STATUS_TEXT[o.status]}: ${items}. Total $${o.total.toFixed(2)}.`;
}

function holdUp(o: OrderSummary, stock: ReadonlyMap<string, number>): string {
  const short = o.items.filter((i) => (stock.get(i.sku) ?? 0) < i.qty);
  if (short.length === 0) return "All its items are in stock, so it should ship soon.";
  const names = short.map((i) => `${i.name} (${i.sku})`).join(" and ");
  return `It is waiting for ${names}, which ${short.length === 1 ? "is" : "are"} out of stock.`;
}

function listSentence(list: CustomerOrders): string {
  const names = [...new Set(list.orders.map((o) => o.customer))];
  const each = list.orders.map((o) => `${o.id} (${o.status}, placed ${o.placedAt})`);
  const joined = each.length > 1 ? `${each.slice(0, -1).join(", ")} and ${each.at(-1)}` : each[0];
  const who = names.length === 1 ? names[0] : `Customers matching "${list.query}"`;
  const n = list.orders.length;
  return `${who} ${names.length === 1 ? "has" : "have"} ${n} order${n === 1 ? "" : "s"}: ${joined}.`;
}
