/**
 * The order-support tools of the demo and the shop data they read.
 *
 * The tools never read globals: the data comes in as the run's `context`
 * (`runAgent(agent, question, { context: shop })`), so a test can run them on other data.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { type AnyTool, type ToolContext, tool } from "nodestep";
import { z } from "zod";

// ---------------------------------------------------------------- the shop data

/** Where an order is: placed and being packed, on its way, arrived, or called off. */
export const OrderStatus = z.enum(["processing", "shipped", "delivered", "cancelled"]);
export type OrderStatus = z.infer<typeof OrderStatus>;

const Order = z.object({
  id: z.string(),
  customer: z.string(),
  placedAt: z.string(),
  status: OrderStatus,
  items: z.array(z.object({ sku: z.string(), qty: z.number().int(), price: z.number() })),
  shipping: z
    .object({
      carrier: z.string(),
      tracking: z.string(),
      shippedAt: z.string(),
      estimatedDelivery: z.string(),
      deliveredAt: z.string().nullable(),
    })
    .nullable(),
  cancelledAt: z.string().nullable(),
});
export type Order = z.infer<typeof Order>;

const Stock = z.record(z.string(), z.object({ name: z.string(), quantity: z.number().int() }));
export type Stock = z.infer<typeof Stock>;

/** What the tools read: the run's `context`. */
export interface Shop {
  orders: Order[];
  stock: Stock;
}

/**
 * Read the shop shipped with the demo (`data/orders.json`, `data/stock.json`), checked
 * against its schema.
 */
export function loadShop(dir: URL = new URL("./data/", import.meta.url)): Shop {
  const read = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), "utf8"));
  return {
    orders: z.array(Order).parse(read("orders.json")),
    stock: Stock.parse(read("stock.json")),
  };
}

/** A lookup that found nothing. The model sees it as `Tool error: NotFoundError: <message>`. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

// ---------------------------------------------------------------- tool results

export const OrderSummary = z.object({
  id: z.string(),
  customer: z.string(),
  placedAt: z.string(),
  status: OrderStatus,
  items: z.array(
    z.object({ sku: z.string(), name: z.string(), qty: z.number(), price: z.number() }),
  ),
  total: z.number(),
});
export type OrderSummary = z.infer<typeof OrderSummary>;

export const ShippingStatus = z.object({
  orderId: z.string(),
  status: OrderStatus,
  carrier: z.string().nullable(),
  tracking: z.string().nullable(),
  shippedAt: z.string().nullable(),
  estimatedDelivery: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
});
export type ShippingStatus = z.infer<typeof ShippingStatus>;

export const StockReport = z.object({
  query: z.string(),
  matches: z.array(z.object({ sku: z.string(), name: z.string(), quantity: z.number() })),
});
export type StockReport = z.infer<typeof StockReport>;

export const CustomerOrders = z.object({
  query: z.string(),
  orders: z.array(
    z.object({
      id: z.string(),
      customer: z.string(),
      status: OrderStatus,
      placedAt: z.string(),
      total: z.number(),
    }),
  ),
});
export type CustomerOrders = z.infer<typeof CustomerOrders>;

// ---------------------------------------------------------------- the tools

const orderId = z.string().describe('Order id, like "A-1001"');

function findOrder(shop: Shop, id: string): Order {
  const wanted = id.trim().toUpperCase();
  const order = shop.orders.find((o) => o.id === wanted);
  if (!order) throw new NotFoundError(`no order ${id}; order ids look like A-1001`);
  return order;
}

const cents = (n: number): number => Math.round(n * 100) / 100;
const totalOf = (order: Order): number =>
  cents(order.items.reduce((sum, i) => sum + i.qty * i.price, 0));

export const getOrder = tool(
  ({ orderId }, ctx: ToolContext<Shop>): OrderSummary => {
    const shop = ctx.context;
    const order = findOrder(shop, orderId);
    return {
      id: order.id,
      customer: order.customer,
      placedAt: order.placedAt,
      status: order.status,
      items: order.items.map((i) => ({
        sku: i.sku,
        name: shop.stock[i.sku]?.name ?? i.sku,
        qty: i.qty,
        price: i.price,
      })),
      total: totalOf(order),
    };
  },
  {
    name: "get_order",
    description: "Look up an order: customer, date, status, items and total.",
    input: z.object({ orderId }),
    output: OrderSummary,
  },
);

export const getShippingStatus = tool(
  ({ orderId }, ctx: ToolContext<Shop>): ShippingStatus => {
    const order = findOrder(ctx.context, orderId);
    return {
      orderId: order.id,
      status: order.status,
      carrier: order.shipping?.carrier ?? null,
      tracking: order.shipping?.tracking ?? null,
      shippedAt: order.shipping?.shippedAt ?? null,
      estimatedDelivery: order.shipping?.estimatedDelivery ?? null,
      deliveredAt: order.shipping?.deliveredAt ?? null,
      cancelledAt: order.cancelledAt,
    };
  },
  {
    name: "get_shipping_status",
    description:
      "Where an order is: processing, shipped, delivered or cancelled, with carrier, tracking number and dates.",
    input: z.object({ orderId }),
    output: ShippingStatus,
  },
);

const STOP_WORDS = new Set(["a", "an", "the", "of", "and", "with", "g"]);

/** Lower-case words without plural "s" and filler words: "the Blue Mugs" → ["blue", "mug"]. */
export function productWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "" && !STOP_WORDS.has(w))
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

export const checkStock = tool(
  ({ product }, ctx: ToolContext<Shop>): StockReport => {
    const stock = ctx.context.stock;
    const sku = product.trim().toUpperCase();
    const exact = stock[sku];
    if (exact)
      return { query: product, matches: [{ sku, name: exact.name, quantity: exact.quantity }] };
    const wanted = productWords(product);
    const matches = Object.entries(stock)
      .filter(([key, item]) => {
        const words = new Set([...productWords(item.name), ...productWords(key)]);
        return wanted.length > 0 && wanted.every((w) => words.has(w));
      })
      .map(([key, item]) => ({ sku: key, name: item.name, quantity: item.quantity }));
    if (matches.length === 0) {
      throw new NotFoundError(`no product matching "${product}"`);
    }
    return { query: product, matches };
  },
  {
    name: "check_stock",
    description:
      'How many items of a product are in stock. Give a SKU ("MUG-BLU") or words of the product name ("blue mug"); every product that matches is listed.',
    input: z.object({ product: z.string().describe("SKU or product name") }),
    output: StockReport,
  },
);

export const listOrdersForCustomer = tool(
  ({ customer }, ctx: ToolContext<Shop>): CustomerOrders => {
    const wanted = customer.trim().toLowerCase();
    const orders = ctx.context.orders
      .filter((o) => {
        const name = o.customer.toLowerCase();
        return name === wanted || name.split(" ").includes(wanted);
      })
      .map((o) => ({
        id: o.id,
        customer: o.customer,
        status: o.status,
        placedAt: o.placedAt,
        total: totalOf(o),
      }));
    if (orders.length === 0) throw new NotFoundError(`no orders for customer "${customer}"`);
    return { query: customer, orders };
  },
  {
    name: "list_orders_for_customer",
    description: "List the orders of a customer, by full name or first or last name.",
    input: z.object({ customer: z.string() }),
    output: CustomerOrders,
  },
);

/** All the demo's tools. */
export const shopTools: readonly AnyTool[] = [
  getOrder,
  getShippingStatus,
  checkStock,
  listOrdersForCustomer,
];
