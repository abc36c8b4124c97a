import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { createServer, type ListeningServer, listen } from "../server/index.js";
import { MemoryStateStore } from "../stores/index.js";

const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

describe("studio in headless Chromium", () => {
  let server: ListeningServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const outside: string[] = [];

  beforeAll(async () => {
    if (!existsSync("/usr/bin/chromium")) {
      // `npm test` installs it first (test/setup/chromium.mjs); a direct vitest run does not.
      throw new Error(
        "the studio test needs Chromium at /usr/bin/chromium: run npm test as root, or apt-get update && apt-get install -y chromium",
      );
    }
    mkdirSync(artifacts, { recursive: true });
    const graph = buildRefundGraph({ stateStore: new MemoryStateStore() });
    server = await listen(createServer({ graph }), { port: 0 });
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: CHROMIUM_ARGS,
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(m.text());
    });
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) outside.push(r.url());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const text = (selector: string) => page.locator(selector).innerText();
  const stateJson = async () =>
    JSON.parse(await page.locator("#state").innerText()) as Record<string, unknown>;
  const contents = (state: Record<string, unknown>) =>
    (state.messages as { content: string }[]).map((m) => m.content);

  it("draws the graph, runs to an approval, answers it, shows the state at an event and forks", async () => {
    await page.goto(`${server.url}/`);
    await page.locator('#graph svg g[data-node="approve"]').waitFor();
    expect(
      await page
        .locator("#graph svg g.node")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-node"))),
    ).toEqual(["__start__", "plan", "approve", "reply", "__end__"]);
    expect(await page.locator("#graph svg path.edge").count()).toBe(5);
    await expect.poll(() => text("#status")).toBe("ready");
    expect(await text("#threads")).toBe("no threads yet");

    // Start a run with a message: it pauses for approval.
    await page.locator("#message").fill("Refund 250 for order A-1");
    await page.locator("#run").click();
    await page.locator("#interrupts .question").waitFor();
    expect(await text("#interrupts .question")).toBe("Refund 250 EUR?");
    await expect.poll(() => text("#status")).toBe("run interrupted");
    const threadId = (await text("#thread-label")).replace(/^thread /, "");
    expect(threadId).toMatch(/^t-[0-9a-f]{12}$/);
    expect(await page.locator("#events li").allInnerTexts()).toEqual([
      'custom plan step 0: {"progress":"planning"}',
      "updates plan step 0: ai: A refund of 250 EUR needs approval.",
      "interrupt paused: approve",
      "end interrupted, waiting for 1 answer(s)",
    ]);
    expect(
      await page.locator(`#threads li[data-thread-id="${threadId}"]`).getAttribute("class"),
    ).toBe("selected");
    expect(await page.locator("#graph g.node.next").getAttribute("data-node")).toBe("approve");
    await page.screenshot({ path: `${artifacts}studio-1-paused.png`, fullPage: true });

    // Answer yes: the run goes on to the end.
    await page.locator("#interrupts .answer-yes").click();
    await expect.poll(() => text("#status")).toBe("run completed");
    expect(await page.locator("#interrupts").isHidden()).toBe(true);
    await expect
      .poll(async () => contents(await stateJson()))
      .toEqual([
        "Refund 250 for order A-1",
        "A refund of 250 EUR needs approval.",
        "Refunded 250 EUR.",
      ]);
    await expect.poll(() => page.locator("#history li").count()).toBe(8);
    await page.screenshot({ path: `${artifacts}studio-2-answered.png`, fullPage: true });

    // Click an event: the state after it.
    const eventId = `${threadId}/main/2`;
    await page.locator(`#history li[data-event-id="${eventId}"]`).click();
    await expect.poll(() => text("#state-label")).toBe(`after ${eventId}`);
    const atEvent = await stateJson();
    expect(atEvent.amount).toBe(250);
    expect(atEvent.approved).toBe(null);
    expect(contents(atEvent)).toEqual([
      "Refund 250 for order A-1",
      "A refund of 250 EUR needs approval.",
    ]);
    expect(await page.locator("#fork").isEnabled()).toBe(true);
    await page.screenshot({ path: `${artifacts}studio-3-event.png`, fullPage: true });

    // Fork from that event and run the branch to another answer.
    await page.locator("#fork").click();
    await expect.poll(() => text("#status")).toMatch(/^forked branch b-[0-9a-f]+ at /);
    // The branch list refreshes after the fork's answer: wait for it to show the new branch.
    await expect.poll(() => page.locator("#branch").inputValue()).toMatch(/^b-[0-9a-f]+$/);
    await expect.poll(() => page.locator("#history li").count()).toBe(2);
    await page.locator("#message").fill("");
    await page.locator("#run").click();
    await page.locator("#interrupts .answer-no").waitFor();
    await page.locator("#interrupts .answer-no").click();
    await expect.poll(() => text("#status")).toBe("run completed");
    // The state panel refreshes after the status line: wait for it.
    await expect
      .poll(async () => contents(await stateJson()).at(-1))
      .toBe("The refund of 250 EUR was declined.");
    await page.screenshot({ path: `${artifacts}studio-4-forked.png`, fullPage: true });

    // The main branch still has its own ending.
    await page.locator("#branch").selectOption("main");
    await expect.poll(async () => contents(await stateJson()).at(-1)).toBe("Refunded 250 EUR.");

    expect(pageErrors).toEqual([]);
    expect(outside).toEqual([]);
  });
});
