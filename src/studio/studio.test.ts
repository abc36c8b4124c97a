/**
 * The studio's shell in headless Chromium: the built page loads (its title, tabs, thread
 * list), a message starts a thread, a plain interrupt (`ctx.interrupt({ question })`) is
 * answered with Yes, and a server with an API key asks for it once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { createServer, listen } from "../server/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { openStudio, SCREENSHOTS, type StudioHarness } from "./fixtures/browser.js";
import { buildOrderForm } from "./fixtures/order-form.js";

const WAIT = { timeout: 15_000 };

describe("studio shell in headless Chromium", () => {
  let h: StudioHarness;
  const status = () => h.page.getByTestId("status").innerText();
  beforeAll(async () => {
    h = await openStudio({ graph: buildRefundGraph({ stateStore: new MemoryStateStore() }) });
  });
  afterAll(() => h?.close());

  it("loads the built page; a message starts a thread that pauses; Yes answers its question", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(status, WAIT).toBe("ready");
    expect(await page.title()).toBe("refund · nodestep studio");
    expect(await page.locator("header .graph-name").innerText()).toBe("refund");
    expect(await page.locator(".tabs .tab").allInnerTexts()).toEqual([
      "Graph",
      "History",
      "State",
      "Metrics",
    ]);
    expect(await page.locator(".threads .list").innerText()).toBe("no threads yet");
    await page.screenshot({ path: `${SCREENSHOTS}empty.png` });

    // An input that does not fit the state: the text stays, the server's message shows under it.
    const bad = '{"messages": 5}';
    await page.locator(".composer textarea").fill(bad);
    await page.locator(".composer button.send").click();
    await page.getByTestId("composer-error").waitFor(WAIT);
    expect(await page.getByTestId("composer-error").innerText()).toBe(
      'StateUpdateError: Invalid update for state field "messages" written by the run input: Invalid input: expected array or object, received number',
    );
    expect(await page.locator(".composer textarea").inputValue()).toBe(bad);
    expect(await page.locator(".chat .msg").count()).toBe(0);

    await page.locator(".composer textarea").fill("Refund 250 for order A-1");
    await page.locator(".composer button.send").click();
    await expect.poll(status, WAIT).toBe("run interrupted");
    expect(await page.locator(".chat .msg").allInnerTexts()).toEqual([
      "Refund 250 for order A-1",
      "A refund of 250 EUR needs approval.",
    ]);
    const label = await page.getByTestId("thread-label").innerText();
    expect(label).toMatch(/^thread t-[0-9a-f]{12}$/);
    expect(await page.locator(".threads li.selected").getAttribute("data-thread-id")).toBe(
      label.replace(/^thread /, ""),
    );
    // A plain interrupt: its question, Yes / No / a free answer.
    const form = page.locator('.interrupt[data-key="approve"]');
    expect(await form.locator(".question").innerText()).toBe("Refund 250 EUR?");
    expect(await form.locator("button").allInnerTexts()).toEqual(["Yes", "No", "Send"]);
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The run is paused at approve, waiting for the answer above.",
    );
    expect(
      await page
        .locator(".graph-svg g.node.next")
        .evaluateAll((gs) => gs.map((g) => g.getAttribute("data-node"))),
    ).toEqual(["approve"]);
    await page.screenshot({ path: `${SCREENSHOTS}interrupt.png` });
    await form.locator("button.answer-yes").click();
    await expect.poll(status, WAIT).toBe("run completed");
    expect(await page.locator(".chat .msg").allInnerTexts()).toEqual([
      "Refund 250 for order A-1",
      "A refund of 250 EUR needs approval.",
      "Refunded 250 EUR.",
    ]);
    expect(await page.locator(".interrupts").count()).toBe(0);
    expect(await page.locator(".composer-error").count()).toBe(0);
    // The thread is in the address: a reload shows it again.
    const threadId = label.replace(/^thread /, "");
    await expect
      .poll(() => new URL(page.url()).search, WAIT)
      .toBe(`?thread=${threadId}&branch=main`);
    await page.reload();
    await expect
      .poll(() => page.locator(".chat .msg").allInnerTexts(), WAIT)
      .toEqual([
        "Refund 250 for order A-1",
        "A refund of 250 EUR needs approval.",
        "Refunded 250 EUR.",
      ]);
    expect(await page.getByTestId("thread-label").innerText()).toBe(label);
    expect(h.errors).toEqual([]);
    // The refused run (its new thread has no events yet: the state read after it is a 404).
    expect(h.failed).toEqual([
      `400 POST /api/threads/${threadId}/runs/stream`,
      `404 GET /api/threads/${threadId}/state`,
    ]);
    expect(h.outside).toEqual([]);
  });

  it("asks for the API key of a server that needs one, then works with it", async () => {
    const locked = await listen(
      createServer({
        graph: buildRefundGraph({ stateStore: new MemoryStateStore() }),
        apiKey: "sesame",
      }),
      { port: 0 },
    );
    try {
      const { page } = h;
      await page.goto(`${locked.url}/`);
      await page.locator(".key-form").waitFor(WAIT);
      expect(await status()).toBe(
        "Unauthorized: This server needs an API key: send Authorization: Bearer <key>",
      );
      await page.locator('.key-form input[type="password"]').fill("sesame");
      await page.locator(".key-form button").click();
      await expect.poll(status, WAIT).toBe("ready");
      expect(await page.locator(".key-form").count()).toBe(0);
      expect(await page.locator(".threads .list").innerText()).toBe("no threads yet");
    } finally {
      await locked.close();
    }
  });

  it("builds answer forms from interrupt values: options, a schema, a free answer; a refused one shows in place", async () => {
    const form = await listen(
      createServer({ graph: buildOrderForm({ stateStore: new MemoryStateStore() }) }),
      {
        port: 0,
      },
    );
    try {
      const { page } = h;
      await page.goto(`${form.url}/`);
      await expect.poll(status, WAIT).toBe("ready");
      // A graph without a messages field: a JSON object is the run's input.
      await page.locator(".composer textarea").fill("{}");
      await page.locator(".composer button.send").click();
      await expect.poll(status, WAIT).toBe("run interrupted");
      expect(await page.locator(".chat .empty").innerText()).toBe(
        "This graph's state has no messages: its fields are in the State tab.",
      );
      const size = page.locator('.interrupt[data-key="size"]');
      expect(await size.locator(".question").innerText()).toBe("Which size?");
      expect(await size.locator("button.option").allInnerTexts()).toEqual(["S", "M", "L"]);
      await size.locator("button.option", { hasText: "M" }).click();
      await expect.poll(status, WAIT).toBe("run interrupted");
      const address = page.locator('.interrupt[data-key="address"]');
      expect(await address.locator(".field-label").allInnerTexts()).toEqual(["street *"]);
      expect(await address.locator(".field-help").allInnerTexts()).toEqual(["Street and number"]);
      await address.locator('input[name="street"]').fill("1 Main St");
      await address.locator('input[name="express"]').check();
      await address.locator("button.answer-send").click();
      await expect.poll(status, WAIT).toBe("run interrupted");
      const count = page.locator('.interrupt[data-key="count"]');
      await count.locator("input.answer-input").fill("lots");
      await count.locator("button.answer-send").click();
      await page.locator(".answer-error").waitFor(WAIT);
      expect(await page.locator(".answer-error").innerText()).toBe(
        'ValueError: How many: give a whole number, got "lots"',
      );
      await page.screenshot({ path: `${SCREENSHOTS}interrupt-refused.png` });
      await page.locator('.interrupt[data-key="count"] input.answer-input').fill("3");
      await page.locator('.interrupt[data-key="count"] button.answer-send').click();
      await expect.poll(status, WAIT).toBe("run completed");
      const threadId = (await page.getByTestId("thread-label").innerText()).replace(/^thread /, "");
      const state = (await (await fetch(`${form.url}/api/threads/${threadId}/state`)).json()) as {
        state: unknown;
      };
      expect(state.state).toEqual({
        size: "M",
        address: { street: "1 Main St", express: true },
        count: 3,
      });
    } finally {
      await form.close();
    }
  });
});
