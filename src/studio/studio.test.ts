import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { openStudio, type StudioHarness } from "./fixtures/browser.js";

describe("studio shell in headless Chromium", () => {
  let h: StudioHarness;
  beforeAll(async () => {
    h = await openStudio({ graph: buildRefundGraph({ stateStore: new MemoryStateStore() }) });
  });
  afterAll(() => h?.close());

  it("loads the built page: the graph's name, the tabs, no threads; a message starts a thread", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(() => page.getByTestId("status").innerText()).toBe("ready");
    expect(await page.title()).toBe("refund · nodestep studio");
    expect(await page.locator("header .graph-name").innerText()).toBe("refund");
    expect(await page.locator(".tabs .tab").allInnerTexts()).toEqual([
      "Graph",
      "History",
      "State",
      "Metrics",
    ]);
    expect(await page.locator(".threads .list").innerText()).toBe("no threads yet");
    await page.locator(".composer textarea").fill("Refund 250 for order A-1");
    await page.locator(".composer button.send").click();
    await expect.poll(() => page.getByTestId("status").innerText()).toBe("run interrupted");
    expect(await page.locator(".chat .msg").allInnerTexts()).toEqual([
      "Refund 250 for order A-1",
      "A refund of 250 EUR needs approval.",
    ]);
    const label = await page.getByTestId("thread-label").innerText();
    expect(label).toMatch(/^thread t-[0-9a-f]{12}$/);
    expect(await page.locator(".threads li.selected").getAttribute("data-thread-id")).toBe(
      label.replace(/^thread /, ""),
    );
    expect(h.errors).toEqual([]);
    expect(h.outside).toEqual([]);
  });
});
