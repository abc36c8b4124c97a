/**
 * The studio's chat view in headless Chromium (issue 18, item 1): a conversation with a shop
 * agent whose answers stream chunk by chunk; the text appears as it streams, the node running
 * is marked, reasoning is folded, parallel tool calls show as cards each with its own result,
 * a tool's image and file show; the State tab is a tree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoAgent } from "../../examples/demo/agent.js";
import { createServer, listen } from "../server/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { openStudio, SCREENSHOTS, type StudioHarness } from "./fixtures/browser.js";
import { buildShopAgent, RED_PNG } from "./fixtures/shop-agent.js";

/** How long a poll waits for the page: runs stream for a second or two. */
const WAIT = { timeout: 15_000 };

const ANSWER =
  "Order A-1001 shipped with DHL and should arrive on 3 December. The blue mug is in stock: 12 left.";

describe("studio chat view in headless Chromium", () => {
  let h: StudioHarness;
  beforeAll(async () => {
    h = await openStudio({
      graph: buildShopAgent({ stateStore: new MemoryStateStore(), delayMs: 60 }),
    });
  });
  afterAll(() => h?.close());

  it("follows a conversation: streamed text, the running node, reasoning, parallel tool cards, an image and a file", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("ready");
    await page
      .locator(".composer textarea")
      .fill("Where is order A-1001, and is the blue mug in stock?");
    await page.locator(".composer textarea").press("Enter");

    // While the model writes, its text grows in a streaming bubble, and "think" is marked running.
    const streaming = page.locator(".msg.streaming .text");
    await expect
      .poll(
        async () => (await streaming.count()) > 0 && (await streaming.innerText()).length > 20,
        { timeout: 10_000 },
      )
      .toBe(true);
    const partial = await streaming.first().innerText();
    expect(ANSWER.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(ANSWER.length);
    expect(
      await page
        .locator(".graph-svg g.node.running")
        .evaluateAll((gs) => gs.map((g) => g.getAttribute("data-node"))),
    ).toEqual(["think"]);
    expect(await page.locator(".composer textarea").isDisabled()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}chat-streaming.png` });

    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("run completed");
    expect(await page.locator(".msg.streaming").count()).toBe(0);
    expect(await page.locator(".graph-svg g.node.running").count()).toBe(0);
    expect(
      await page.locator(".chat > .msg").evaluateAll((els) => els.map((e) => e.className)),
    ).toEqual(["msg human", "msg ai", "msg ai"]);
    expect(await page.locator(".chat > .msg.human").innerText()).toBe(
      "Where is order A-1001, and is the blue mug in stock?",
    );
    expect(await page.locator(".chat > .msg.ai").nth(1).innerText()).toBe(ANSWER);

    // The reasoning is folded: a summary line, the text inside a closed <details>.
    const reasoning = page.locator(".chat > .msg.ai").first().locator("details.reasoning");
    expect(await reasoning.getAttribute("open")).toBe(null);
    expect(await reasoning.locator("summary").innerText()).toBe("reasoning");
    await reasoning.locator("summary").click();
    expect(await reasoning.locator(".text").innerText()).toBe(
      "Two questions: the order and the stock.",
    );

    // The two parallel calls, each with its own arguments and result.
    const cards = page.locator(".tool-card");
    expect(await cards.evaluateAll((els) => els.map((e) => e.getAttribute("data-tool")))).toEqual([
      "lookup_order",
      "check_stock",
    ]);
    const order = page.locator('.tool-card[data-tool-call-id="call-order"]');
    expect(await order.locator(".tool-status").innerText()).toBe("done");
    expect(await order.locator(".tool-args").innerText()).toBe('arguments\n{1}\norderId: "A-1001"');
    expect(await order.locator(".tool-result").innerText()).toBe(
      'result\n{4}\norderId: "A-1001"\nstatus: "shipped"\ncarrier: "DHL"\neta: "2026-12-03"',
    );
    const stock = page.locator('.tool-card[data-tool-call-id="call-stock"]');
    expect(await stock.locator(".tool-result").innerText()).toBe(
      'result\n{2}\nsku: "MUG-BLUE"\ninStock: 12',
    );
    await page.screenshot({ path: `${SCREENSHOTS}chat.png` });

    // A second turn: a tool that returns an image and a file.
    await page.locator(".composer textarea").fill("Show me the sales of the blue mug");
    await page.locator(".composer button.send").click();
    await expect
      .poll(() => page.getByTestId("status").innerText(), { timeout: 10_000 })
      .toBe("run completed");
    const chart = page.locator('.tool-card[data-tool-call-id="call-chart"] .tool-result');
    expect(await chart.locator(".text").innerText()).toBe("Sales of the blue mug this week:");
    expect(await chart.locator("img.part-image").getAttribute("src")).toBe(
      `data:image/png;base64,${RED_PNG}`,
    );
    expect(
      await chart
        .locator("img.part-image")
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBe(2);
    const file = chart.locator("a.part-file");
    expect(await file.innerText()).toBe("📎 invoice-A-1001.pdf");
    expect(await file.getAttribute("download")).toBe("invoice-A-1001.pdf");
    expect(await file.getAttribute("href")).toBe("data:application/pdf;base64,JVBERi0xLjQK");
    expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe(
      "Here is the chart and the invoice.",
    );

    // The State tab: one folded row per field; a field opens to its values.
    await page.locator('.tab[data-tab="State"]').click();
    const tree = page.locator(".state-tree");
    expect(
      await tree.locator(":scope > details > summary, :scope > .jt-row").allInnerTexts(),
    ).toEqual([
      "messages [9]",
      "toolCalls [0]",
      'finalText: "Here is the chart and the invoice."',
      "finalOutput: null",
    ]);
    expect(await tree.locator(':scope > details[data-path="messages"]').getAttribute("open")).toBe(
      null,
    );
    await tree.locator(':scope > details[data-path="messages"] > summary').click();
    await tree.locator('details[data-path="messages.0"] > summary').click();
    expect(await tree.locator('[data-path="messages.0.content"]').innerText()).toBe(
      'content: "Where is order A-1001, and is the blue mug in stock?"',
    );
    await page.screenshot({ path: `${SCREENSHOTS}state-tree.png` });

    // Stop a run while the model writes; the thread then offers Continue, which runs it again.
    await page.locator(".composer textarea").fill("Tell me a long story");
    await page.locator(".composer textarea").press("Enter");
    await expect
      .poll(
        async () => (await streaming.count()) > 0 && (await streaming.innerText()).length > 10,
        WAIT,
      )
      .toBe(true);
    await page.locator(".composer button.stop").click();
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("run stopped");
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The last run was stopped before think finished.",
    );
    expect(await page.locator(".paused-guard button.continue").innerText()).toBe(
      "Continue (run think again)",
    );
    // What the model had written is not kept: the stopped step left the thread as before.
    expect(await page.locator(".chat > .msg").count()).toBe(7);
    expect(await page.locator(".chat > .msg").last().innerText()).toBe("Tell me a long story");
    await page.screenshot({ path: `${SCREENSHOTS}stopped-run.png` });
    await page.locator(".paused-guard button.continue").click();
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("run completed");
    expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe(
      "A short story: the mug was sold.",
    );
    expect(h.errors).toEqual([]);
    expect(h.outside).toEqual([]);
  });

  it("the README's demo agent: a question, its tool call as a card, the answer", async () => {
    const { graph, context } = buildDemoAgent({ stateStore: new MemoryStateStore() });
    const demo = await listen(createServer({ graph, context }), { port: 0 });
    try {
      const { page } = h;
      await page.goto(`${demo.url}/`);
      await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("ready");
      await page.locator(".composer textarea").fill("Why hasn't order A-1002 shipped yet?");
      await page.locator(".composer textarea").press("Enter");
      await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("run completed");
      expect(await page.locator(".chat > .msg.human").innerText()).toBe(
        "Why hasn't order A-1002 shipped yet?",
      );
      const card = page.locator(".tool-card");
      expect(await card.evaluateAll((els) => els.map((e) => e.getAttribute("data-tool")))).toEqual([
        "get_shipping_status",
      ]);
      expect(await card.locator(".tool-result").innerText()).toBe(
        [
          "result",
          "{8}",
          'orderId: "A-1002"',
          'status: "shipped"',
          'carrier: "DHL"',
          'tracking: "4827361950"',
          'shippedAt: "2025-03-11"',
          'estimatedDelivery: "2025-03-14"',
          "deliveredAt: null",
          "cancelledAt: null",
        ].join("\n"),
      );
      expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe(
        "Order A-1002 shipped with DHL on 2025-03-11 (tracking 4827361950) and should arrive by 2025-03-14.",
      );
      await page.screenshot({ path: `${SCREENSHOTS}demo.png` });
    } finally {
      await demo.close();
    }
  });
});
