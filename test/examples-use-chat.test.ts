// The useChat page of examples/use-chat in headless Chromium: `nodestep serve` on the scripted
// refund agent, the page built with Vite and served by `vite preview` (its proxy sends /api to
// nodestep), as `npm run example:use-chat` does. Sends a message, watches the text stream in,
// approves the tool from its card, reloads in the middle of the answer and sees the run go on
// and finish, then reloads again and sees the conversation restored from GET …/ui-messages.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUseChat, type UseChat } from "../examples/use-chat/serve.js";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const THREAD = "t-browser";
const FIRST = "Let me look at order A-1 for you.";
const ANSWER =
  "Done: the refund is on its way back to your card, and it should show up there within three to five working days.";

/** What the page shows: each message's role and parts (text, or a tool card's state and contents). */
async function shown(page: Page) {
  return page.$$eval(".message", (nodes) =>
    nodes.map((m) => ({
      role: m.getAttribute("data-role"),
      parts: [...m.querySelectorAll(".text, .tool-card")].map((p) =>
        p.classList.contains("text")
          ? p.textContent
          : {
              tool: p.getAttribute("data-tool"),
              state: p.getAttribute("data-state"),
              input: p.querySelector(".tool-input")?.textContent,
              output: p.querySelector(".tool-output")?.textContent ?? null,
            },
      ),
    })),
  );
}

describe("examples/use-chat: useChat of @ai-sdk/react against nodestep serve, in Chromium", () => {
  let app: UseChat;
  let context: BrowserContext;
  let page: Page;
  const dirs: string[] = [];
  const errors: string[] = [];
  const api: string[] = [];
  const outside: string[] = [];
  const failed: string[] = [];
  const posted: { trigger: string; messageId: string | null; last: string[] }[] = [];

  beforeAll(async () => {
    if (!existsSync("/usr/bin/chromium")) {
      throw new Error(
        "the useChat test needs Chromium at /usr/bin/chromium: run npm test as root, or apt-get update && apt-get install -y chromium",
      );
    }
    const outDir = mkdtempSync(join(tmpdir(), "use-chat-page-"));
    const profile = mkdtempSync(join(tmpdir(), "use-chat-chromium-"));
    dirs.push(outDir, profile);
    app = await startUseChat({ outDir, port: 0, env: { USE_CHAT_DELAY_MS: "150" } });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: CHROMIUM_ARGS,
    });
    // Every value the assistant's text takes, in every page load (a MutationObserver, so that
    // no render between two polls is missed).
    await context.addInitScript({
      content: `window.seen = [];
        new MutationObserver(() => {
          const text = [...document.querySelectorAll('.message[data-role="assistant"] .text')]
            .map((e) => e.textContent)
            .join("|");
          if (window.seen[window.seen.length - 1] !== text) window.seen.push(text);
        }).observe(document, { subtree: true, childList: true, characterData: true });`,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("response", (r) => {
      const url = new URL(r.url());
      if (r.status() >= 400) failed.push(`${r.status()} ${url.pathname}`);
      if (url.pathname.startsWith("/api/")) {
        api.push(`${r.status()} ${r.request().method()} ${url.pathname}${url.search}`);
      }
    });
    page.on("request", (r) => {
      if (new URL(r.url()).origin !== app.url) outside.push(r.url());
      if (r.method() === "POST") {
        const body = r.postDataJSON() as {
          trigger: string;
          messageId?: string;
          messages: { role: string; parts: { type: string; state?: string }[] }[];
        };
        const last = body.messages.at(-1);
        const part = last?.parts.find((p) => p.type.startsWith("tool-")) ?? last?.parts[0];
        posted.push({
          trigger: body.trigger,
          messageId: body.messageId ?? null,
          last: [last?.role ?? "", part?.state ?? part?.type ?? ""],
        });
      }
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await app?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const seen = () => page.evaluate("window.seen") as Promise<string[]>;

  it("streams, asks for approval, survives a reload mid-run, and restores the history", async () => {
    const base = `/api/threads/${THREAD}`;
    await page.goto(`${app.url}/?thread=${THREAD}`);
    await page.getByTestId("status").filter({ hasText: "ready" }).waitFor();
    // A new thread: no history, no run to rejoin.
    await expect.poll(() => api.length).toBe(2);
    expect(api).toEqual([
      `404 GET ${base}/ui-messages`,
      `204 GET ${base}/ui-stream/${THREAD}/stream`,
    ]);
    expect(await shown(page)).toEqual([]);

    // 1. A message: the answer's words arrive one by one, then the tool card asks.
    await page.getByLabel("Message").fill("Please refund order A-1");
    await page.getByRole("button", { name: "Send" }).click();
    const sent = api.length;
    const card = page.locator('.tool-card[data-state="approval-requested"]');
    await card.waitFor();
    expect(await card.locator(".question").innerText()).toBe("Refund order A-1?");
    expect(await shown(page)).toEqual([
      { role: "user", parts: ["Please refund order A-1"] },
      {
        role: "assistant",
        parts: [
          FIRST,
          { tool: "refund", state: "approval-requested", input: '{"orderId":"A-1"}', output: null },
        ],
      },
    ]);
    const firstTexts = (await seen()).filter((t) => t !== "");
    // Word by word: every value is a prefix of the answer, and there are many of them.
    expect(firstTexts.every((t) => FIRST.startsWith(t))).toBe(true);
    expect(firstTexts.length).toBeGreaterThanOrEqual(5);
    expect(firstTexts.at(-1)).toBe(FIRST);

    // 2. Approve on the card: the tool runs, and the closing answer streams.
    expect(api.slice(sent)).toEqual([`200 POST ${base}/ui-stream?onDisconnect=continue`]);
    const assistantId = await page
      .locator('.message[data-role="assistant"]')
      .getAttribute("data-id");
    await card.getByRole("button", { name: "Approve" }).click();
    await page.locator('.tool-card[data-state="output-available"]').waitFor();
    // A few words of the answer are on the page, and it is not finished.
    await page.waitForFunction(`(() => {
      const t = document.querySelectorAll('.message[data-role="assistant"] .text')[1];
      return t && t.textContent.split(" ").length >= 3 && t.textContent !== ${JSON.stringify(ANSWER)};
    })()`);
    const before = (await shown(page))[1]?.parts[2] as string;
    expect(ANSWER.startsWith(before) && before.length < ANSWER.length).toBe(true);

    // 3. Reload in the middle of it: the history comes back, the run is rejoined and finishes.
    const apiBefore = api.length;
    await page.reload();
    await page
      .locator('.message[data-role="assistant"] .text')
      .nth(1)
      .filter({ hasText: ANSWER })
      .waitFor();
    await page.getByTestId("status").filter({ hasText: "ready" }).waitFor();
    const afterReload = (await seen()).filter((t) => t !== "");
    // It went on after the reload: the page saw the answer unfinished (as long as before the
    // reload or longer), then finished.
    expect(
      afterReload.some((t) => {
        const answer = t.split("|")[1] ?? "";
        return answer.length >= before.length && answer.length < ANSWER.length;
      }),
    ).toBe(true);
    expect(afterReload.at(-1)).toBe(`${FIRST}|${ANSWER}`);
    const done = [
      { role: "user", parts: ["Please refund order A-1"] },
      {
        role: "assistant",
        parts: [
          FIRST,
          {
            tool: "refund",
            state: "output-available",
            input: '{"orderId":"A-1"}',
            output: '{"orderId":"A-1","refunded":true,"amount":"25.00 EUR"}',
          },
          ANSWER,
        ],
      },
    ];
    expect(await shown(page)).toEqual(done);
    expect(api.slice(apiBefore)).toEqual([
      `200 GET ${base}/ui-messages`,
      `200 GET ${base}/ui-stream/${THREAD}/stream`,
    ]);
    const runs = (await (await fetch(`${app.apiUrl}${base}/runs`)).json()) as {
      runs: { status: string; detached: boolean }[];
    };
    expect(runs.runs.map((r) => [r.status, r.detached])).toEqual([
      ["interrupted", true],
      ["done", true],
    ]);

    // 4. Reload once more: the same conversation, from GET …/ui-messages alone (no run to join).
    const apiDone = api.length;
    await page.reload();
    await page.locator('.tool-card[data-state="output-available"]').waitFor();
    await page.getByTestId("status").filter({ hasText: "ready" }).waitFor();
    expect(await shown(page)).toEqual(done);
    await expect.poll(() => api.length).toBe(apiDone + 2);
    expect(api.slice(apiDone)).toEqual([
      `200 GET ${base}/ui-messages`,
      `204 GET ${base}/ui-stream/${THREAD}/stream`,
    ]);
    expect((await seen()).filter((t) => t !== "")).toEqual([`${FIRST}|${ANSWER}`]);
    // The one failed request: the first page load asked for the history of a new thread.
    expect(failed).toEqual([`404 ${base}/ui-messages`]);
    expect(errors).toEqual([
      "Failed to load resource: the server responded with a status of 404 (Not Found)",
    ]);
    expect(outside).toEqual([]);
    expect(api).toEqual([
      `404 GET ${base}/ui-messages`,
      `204 GET ${base}/ui-stream/${THREAD}/stream`,
      `200 POST ${base}/ui-stream?onDisconnect=continue`,
      `200 POST ${base}/ui-stream?onDisconnect=continue`,
      `200 GET ${base}/ui-messages`,
      `200 GET ${base}/ui-stream/${THREAD}/stream`,
      `200 GET ${base}/ui-messages`,
      `204 GET ${base}/ui-stream/${THREAD}/stream`,
    ]);
    // What useChat sent: the user's message, then the assistant message with the answer.
    expect(posted).toEqual([
      { trigger: "submit-message", messageId: null, last: ["user", "text"] },
      {
        trigger: "submit-message",
        messageId: assistantId,
        last: ["assistant", "approval-responded"],
      },
    ]);
  }, 60_000);

  it("a denied tool: the card says so and the answer follows", async () => {
    const base = "/api/threads/t-deny";
    const from = api.length;
    await page.goto(`${app.url}/?thread=t-deny`);
    await page.getByTestId("status").filter({ hasText: "ready" }).waitFor();
    await page.getByLabel("Message").fill("Refund order B-2");
    await page.getByRole("button", { name: "Send" }).click();
    const card = page.locator('.tool-card[data-state="approval-requested"]');
    await card.waitFor();
    await card.getByRole("button", { name: "Deny" }).click();
    await page.locator('.tool-card[data-state="output-denied"]').waitFor();
    await page
      .locator('.message[data-role="assistant"] .text')
      .nth(1)
      .filter({ hasText: "The refund was not made." })
      .waitFor();
    await page.getByTestId("status").filter({ hasText: "ready" }).waitFor();
    expect(await shown(page)).toEqual([
      { role: "user", parts: ["Refund order B-2"] },
      {
        role: "assistant",
        parts: [
          "Let me look at order B-2 for you.",
          { tool: "refund", state: "output-denied", input: '{"orderId":"B-2"}', output: null },
          "The refund was not made.",
        ],
      },
    ]);
    expect(api.slice(from)).toEqual([
      `404 GET ${base}/ui-messages`,
      `204 GET ${base}/ui-stream/t-deny/stream`,
      `200 POST ${base}/ui-stream?onDisconnect=continue`,
      `200 POST ${base}/ui-stream?onDisconnect=continue`,
    ]);
    expect(posted.at(-1)?.last).toEqual(["assistant", "approval-responded"]);
    // The thread keeps the denial: a reload shows the same card.
    await page.reload();
    await page.locator('.tool-card[data-state="output-denied"]').waitFor();
    expect((await shown(page))[1]?.parts[1]).toEqual({
      tool: "refund",
      state: "output-denied",
      input: '{"orderId":"B-2"}',
      output: null,
    });
  }, 60_000);
});
