/**
 * The studio's graph, history, metrics and thread views in headless Chromium (issue 18 items
 * 2, 3, 5, 6; issue 16's tokens and cost): a 30-node graph drawn readable; a run's path and
 * running node; the history's rows, diff, time travel, Back to now and a named fork; the
 * metrics per run and node with the trace; thread titles, search and delete. Screenshots go
 * to docs/studio/.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildReactAgent } from "../agents/index.js";
import { ScriptedChat } from "../chat/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { tool } from "../tools/index.js";
import { openStudio, SCREENSHOTS, type StudioHarness } from "./fixtures/browser.js";
import { SlowChat } from "./fixtures/shop-agent.js";
import { buildThirtyNodeGraph } from "./ui/graph/thirty-nodes.fixture.js";

const WAIT = { timeout: 15_000 };

describe("studio graph view of a 30-node graph", () => {
  let h: StudioHarness;
  beforeAll(async () => {
    h = await openStudio({ graph: buildThirtyNodeGraph({ stateStore: new MemoryStateStore() }) });
  });
  afterAll(() => h?.close());

  it("draws every node in its own box, with 14 px labels and every condition's name", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("ready");
    await page.locator('.graph-svg g.node[data-node="merge_results"]').waitFor();
    const boxes = await page.locator(".graph-svg g.node").evaluateAll((gs) =>
      gs.map((g) => {
        const r = g.querySelector("rect")!.getBoundingClientRect();
        const t = g.querySelector("text")!;
        const tr = t.getBoundingClientRect();
        return {
          name: g.getAttribute("data-node")!,
          x: r.x,
          y: r.y,
          w: r.width,
          h: r.height,
          textFits: tr.width <= r.width && tr.height <= r.height,
          font: (
            globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }
          ).getComputedStyle(t).fontSize,
        };
      }),
    );
    expect(boxes.length).toBe(32);
    for (const [i, a] of boxes.entries()) {
      expect([a.name, a.font, a.textFits]).toEqual([a.name, "14px", true]);
      for (const b of boxes.slice(i + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect([a.name, b.name, overlap]).toEqual([a.name, b.name, false]);
      }
    }
    const labels = await page.locator(".graph-svg g.edge-label text").allTextContents();
    expect(labels.filter((l) => l !== "join").sort()).toEqual(
      [
        "isBilling",
        "not isBilling",
        "isShipping",
        "needsRetry",
        "not needsRetry",
        "needsRetry",
        "not needsRetry",
        "needsRetry",
        "not needsRetry",
      ].sort(),
    );
    expect(labels.filter((l) => l === "join").length).toBe(2);
    expect(
      await page
        .locator(".graph-svg g.edge-label text")
        .first()
        .evaluate(
          (t) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }
            ).getComputedStyle(t).fontSize,
        ),
    ).toBe("12px");
    // Breakpoints are marked on their nodes.
    expect(await page.locator('.graph-svg g[data-node="billing_send"] text').textContent()).toBe(
      "⏸ billing_send",
    );
    expect(await page.locator('.graph-svg g[data-node="audit_trail"] text').textContent()).toBe(
      "audit_trail ⏸",
    );
    await page.locator(".panel").screenshot({ path: join(SCREENSHOTS, "graph-30-nodes.png") });
    expect(h.errors).toEqual([]);
    expect(h.outside).toEqual([]);
  });
});

const lookup = tool(({ orderId }: { orderId: string }) => ({ orderId, status: "shipped" }), {
  name: "lookup_order",
  description: "Look up an order.",
  input: z.object({ orderId: z.string() }),
});

/** A ReAct agent whose model streams slowly and reports usage, as model "gpt-4o-mini". */
function buildAgent() {
  const chat = new ScriptedChat(
    [
      {
        toolCalls: [{ id: "call-1", name: "lookup_order", arguments: { orderId: "A-7" } }],
        usage: { inputTokens: 1_200, outputTokens: 40 },
      },
      {
        content: "Order A-7 has shipped and is on its way to you.",
        usage: { inputTokens: 1_500, outputTokens: 60 },
      },
      { content: "You are welcome.", usage: { inputTokens: 1_700, outputTokens: 10 } },
    ],
    { model: "gpt-4o-mini" },
  );
  return buildReactAgent(new SlowChat(chat, 120), {
    name: "orders",
    tools: [lookup],
    stream: true,
    stateStore: new MemoryStateStore(),
  });
}

describe("studio history, metrics and threads", () => {
  let h: StudioHarness;
  beforeAll(async () => {
    h = await openStudio({
      graph: buildAgent(),
      prices: { "gpt-4o-mini": { inputPerMillion: 150, outputPerMillion: 600 } },
    });
  });
  afterAll(() => h?.close());

  const status = () => h.page.getByTestId("status").innerText();
  const send = async (text: string) => {
    await h.page.locator(".composer textarea").fill(text);
    await h.page.locator(".composer textarea").press("Enter");
  };

  it("marks the running node and draws the path the run took", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(status, WAIT).toBe("ready");
    await send("Where is my order A-7?");
    await expect
      .poll(() => page.locator(".graph-svg g.node.running").getAttribute("data-node"), WAIT)
      .toBe("think");
    const keys = () => page.locator(".legend .key").allInnerTexts();
    // The key explains the marks drawn: "running" only while a node runs.
    expect((await keys())[0]).toBe("running");
    await expect.poll(status, WAIT).toBe("run completed");
    await expect.poll(keys, WAIT).toEqual(["path of the last run"]);
    await expect
      .poll(
        () =>
          page
            .locator(".graph-svg path.edge.taken")
            .evaluateAll((ps) => ps.map((p) => p.getAttribute("data-edge")).sort()),
        WAIT,
      )
      .toEqual(["__start__>think", "act>think", "think>__end__", "think>act"]);
    expect(await page.locator(".graph-svg g.node.running").count()).toBe(0);
    expect(
      await page
        .locator(".graph-svg g.edge-label")
        .evaluateAll((gs) =>
          gs.map(
            (g) =>
              `${g.getAttribute("data-edge")} ${g.textContent} ${g.classList.contains("taken")}`,
          ),
        ),
    ).toEqual(["think>act hasToolCalls true", "think>__end__ not hasToolCalls true"]);
    await page.locator(".panel").screenshot({ path: join(SCREENSHOTS, "graph-path.png") });
  });

  it("history: readable rows, the diff and the state at an event, Back to now, a named fork in the tree", async () => {
    const { page } = h;
    await page.locator('.tab[data-tab="History"]').click();
    const rows = page.locator(".history-rows li.history-row");
    await expect.poll(() => rows.count(), WAIT).toBeGreaterThan(4);
    expect(
      await rows.evaluateAll((ls) =>
        ls.map((l) =>
          [".seq", ".tag", ".nodes", ".summary"]
            .map((s) => l.querySelector(s)?.textContent ?? "")
            .join(" | "),
        ),
      ),
    ).toEqual([
      "#1 | run |  | you: Where is my order A-7?",
      "#2 | step | think | asks for lookup_order(orderId=A-7)",
      '#3 | step | act | lookup_order → {"orderId":"A-7","status":"shipped"}',
      "#4 | step | think | ai: Order A-7 has shipped and is on its way to you.",
      "#5 | end |  | completed",
    ]);
    await rows.nth(1).locator(".row-button").click();
    await expect.poll(() => rows.nth(1).getAttribute("class")).toContain("selected");
    expect(await rows.nth(1).locator(".diff li").allInnerTexts()).toEqual([
      "+ messages[1] ai: asks for lookup_order",
      '+ toolCalls[0] {"id":"call-1","name":"lookup_order","arguments":{"orderId":"A-7"},"argumentsError":null}',
    ]);
    // The conversation shows the thread as it was there.
    await expect.poll(() => page.locator(".time-travel").count(), WAIT).toBe(1);
    // At 1024 px: the diff's lines wrap inside the panel; "Back to now" stays on one line.
    await page.setViewportSize({ width: 1024, height: 800 });
    type Box = { scrollWidth: number; clientWidth: number };
    expect(
      await rows
        .nth(1)
        .locator(".diff li")
        .evaluateAll((ls) =>
          ls.map((l) => (l as unknown as Box).scrollWidth - (l as unknown as Box).clientWidth),
        ),
    ).toEqual([0, 0]);
    // Lines of a button's text: one rect per line box.
    const oneLine = (selector: string) =>
      page.locator(selector).evaluate((b) => {
        const range = b.ownerDocument.createRange();
        range.selectNodeContents(b);
        return range.getClientRects().length;
      });
    expect(await oneLine(".history-tools .back-to-now")).toBe(1);
    expect(await oneLine(".time-travel .back-to-now")).toBe(1);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.screenshot({ path: join(SCREENSHOTS, "history.png") });
    await page.locator(".history-tools .back-to-now").click();
    await expect.poll(() => page.locator(".time-travel").count(), WAIT).toBe(0);
    expect(await page.locator(".history-rows li.selected").count()).toBe(0);

    await rows.nth(1).locator(".row-button").click();
    await rows.nth(1).locator(".fork-name").fill("ask-again");
    await rows.nth(1).locator(".fork-button").click();
    await expect.poll(() => page.locator(".branch-select").inputValue(), WAIT).toBe("ask-again");
    await expect.poll(() => new URL(page.url()).searchParams.get("branch"), WAIT).toBe("ask-again");
    await expect
      .poll(
        () =>
          page
            .locator(".fork-tree li")
            .evaluateAll((ls) => ls.map((l) => l.getAttribute("data-branch"))),
        WAIT,
      )
      .toEqual(["main", "ask-again"]);
    expect(await page.locator('.fork-tree li[data-branch="ask-again"] .muted').innerText()).toBe(
      "from main #2 · step_committed: asks for lookup_order(orderId=A-7)",
    );
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    await page.locator(".panel").screenshot({ path: join(SCREENSHOTS, "history-fork.png") });
    await page.locator('.fork-tree li[data-branch="main"] > .branch-button').click();
    await expect.poll(() => page.locator(".branch-select").inputValue(), WAIT).toBe("main");
    await expect.poll(() => rows.count(), WAIT).toBe(5);
    // Switched away, the fork (no events of its own) stays in the header's menu.
    await expect
      .poll(
        () =>
          page
            .locator(".branch-select option")
            .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value)),
        WAIT,
      )
      .toEqual(["main", "ask-again"]);
  });

  it("metrics: per run and per node latency, calls, tokens and cost; the trace", async () => {
    const { page } = h;
    await page.locator('.tab[data-tab="Metrics"]').click();
    const runRow = page.locator(".metrics-table.runs tbody tr");
    await expect.poll(() => runRow.count(), WAIT).toBe(1);
    expect(await page.getByTestId("models-used").innerText()).toBe(
      "models that answered: gpt-4o-mini",
    );
    // 2,700 in × 150 / 1M + 100 out × 600 / 1M = 0.405 + 0.06
    const cells = await runRow.locator("td").allInnerTexts();
    expect([cells[1], cells[3], cells[4], cells[5]]).toEqual([
      "completed",
      "2 / 1",
      "2.7k / 100",
      "$0.47",
    ]);
    expect(await runRow.locator("td").nth(4).getAttribute("title")).toBe(
      "2,700 tokens in, 100 tokens out",
    );
    // The tables fit the panel at 1280 px: no horizontal scroll.
    await page.setViewportSize({ width: 1280, height: 900 });
    type Box = { scrollWidth: number; clientWidth: number };
    expect(
      await page
        .locator(".metrics")
        .evaluate((m) => (m as unknown as Box).scrollWidth - (m as unknown as Box).clientWidth),
    ).toBe(0);
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(cells[2]).toMatch(/^\d+ ms$|^\d\.\d\d s$/);
    const nodes = await page
      .locator(".metrics-table.nodes tbody tr")
      .evaluateAll((rs) =>
        rs.map((r) =>
          [...r.querySelectorAll("td")].map((d, i) => (i === 2 ? "ms" : d.textContent)),
        ),
      );
    expect(nodes).toEqual([
      ["think", "2", "ms", "2 / 0", "2.7k / 100", "$0.47"],
      ["act", "1", "ms", "0 / 1", "0 / 0", "$0"],
    ]);
    expect(
      await page
        .locator(".trace .span")
        .evaluateAll((ss) => ss.map((s) => s.getAttribute("class"))),
    ).toEqual([
      "span kind-run status-ok",
      "span kind-node status-ok",
      "span kind-model status-ok",
      "span kind-node status-ok",
      "span kind-tool status-ok",
      "span kind-node status-ok",
      "span kind-model status-ok",
    ]);
    expect(await page.locator(".trace .span-name").allInnerTexts()).toEqual([
      "run orders",
      "node think",
      "model gpt-4o-mini",
      "node act",
      "tool lookup_order",
      "node think",
      "model gpt-4o-mini",
    ]);
    await page.locator(".panel").screenshot({ path: join(SCREENSHOTS, "metrics.png") });
    // On the fork made at #2 (mid-run), the main run has no end: "forked", not "running".
    // (Opened from its address, which also restores a branch.)
    const threadId = (await page.getByTestId("thread-label").innerText()).replace(/^thread /, "");
    await page.goto(`${h.server.url}/?thread=${threadId}&branch=ask-again`);
    await expect.poll(() => page.locator(".branch-select").inputValue(), WAIT).toBe("ask-again");
    await page.locator('.tab[data-tab="Metrics"]').click();
    const forked = page.locator(".metrics-table.runs tbody td.status-forked");
    await expect.poll(() => forked.count(), WAIT).toBe(1);
    expect(await forked.innerText()).toBe("forked");
    expect(await page.locator(".trace .span.kind-run .span-detail").innerText()).toBe(
      "forked: cut at the fork point (main #2)",
    );
    await page.goto(`${h.server.url}/?thread=${threadId}&branch=main`);
    await page.locator('.tab[data-tab="Metrics"]').click();
    await expect.poll(() => runRow.count(), WAIT).toBe(1);
    expect(await forked.count()).toBe(0);
  });

  it("threads: titled by their first message, searched, deleted", async () => {
    const { page } = h;
    await page.locator(".threads .new-thread").click();
    await send("Thanks a lot");
    await expect.poll(status, WAIT).toBe("run completed");
    const titles = () => page.locator(".threads .thread-title").allInnerTexts();
    await expect.poll(titles, WAIT).toEqual(["Thanks a lot", "Where is my order A-7?"]);
    await page.locator(".thread-search").fill("ORDER");
    await expect.poll(titles, WAIT).toEqual(["Where is my order A-7?"]);
    await page.locator(".threads").screenshot({ path: join(SCREENSHOTS, "threads.png") });
    await page.locator(".thread-search").fill("");
    await expect.poll(titles, WAIT).toEqual(["Thanks a lot", "Where is my order A-7?"]);
    const first = page.locator(".threads li[data-thread-id]").first();
    await first.locator(".delete-thread").click();
    await first.locator(".delete-yes").click();
    await expect.poll(titles, WAIT).toEqual(["Where is my order A-7?"]);
    expect(await page.getByTestId("thread-label").innerText()).toBe("new thread");
    expect(h.errors).toEqual([]);
    expect(h.outside).toEqual([]);
  });
});

describe("studio model choice", () => {
  let h: StudioHarness;
  const agentOn = (store: MemoryStateStore, model: string) =>
    buildReactAgent(
      new ScriptedChat(
        [{ content: `Answered by ${model}.`, usage: { inputTokens: 10_000, outputTokens: 1_000 } }],
        { model },
      ),
      { name: "chooser", tools: [], stateStore: store },
    );
  beforeAll(async () => {
    const store = new MemoryStateStore();
    h = await openStudio({
      graph: agentOn(store, "small-model"),
      models: {
        current: "scripted:small",
        graphs: { "scripted:large": agentOn(store, "large-model") },
      },
      prices: {
        "small-model": { inputPerMillion: 1, outputPerMillion: 2 },
        "large-model": { inputPerMillion: 10, outputPerMillion: 20 },
      },
    });
  });
  afterAll(() => h?.close());

  it("shows the model in use, runs the next message on the chosen one, and its tokens and cost", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("ready");
    await page.locator('.tab[data-tab="Metrics"]').click();
    const select = page.locator(".model-select");
    await select.waitFor();
    expect(await select.locator("option").allInnerTexts()).toEqual([
      "scripted:small (default)",
      "scripted:large",
    ]);
    await select.selectOption("scripted:large");
    await page.locator(".composer textarea").fill("Which model are you?");
    await page.locator(".composer textarea").press("Enter");
    await expect.poll(() => page.getByTestId("status").innerText(), WAIT).toBe("run completed");
    await expect
      .poll(() => page.locator(".chat .msg").allInnerTexts(), WAIT)
      .toEqual(["Which model are you?", "Answered by large-model."]);
    await expect
      .poll(() => page.getByTestId("models-used").innerText(), WAIT)
      .toBe("models that answered: large-model");
    // 10,000 in × 10 / 1M + 1,000 out × 20 / 1M = 0.1 + 0.02
    const cells = await page.locator(".metrics-table.runs tbody tr td").allInnerTexts();
    expect(cells.slice(3)).toEqual(["1 / 0", "10k / 1k", "$0.12"]);
    await page.locator(".panel").screenshot({ path: join(SCREENSHOTS, "model-choice.png") });
    expect(h.errors).toEqual([]);
    expect(h.outside).toEqual([]);
  });
});
