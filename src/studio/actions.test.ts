/**
 * Acting on a thread in the studio, in headless Chromium (issue 18, item 4): approvals as
 * forms from the tool's JSON schema (approve with edited arguments, deny with a reason), a
 * refused answer shown in place, the paused-thread guard, state editing, forks (from an event,
 * and with edited state), breakpoints and Continue, and continuing a failed run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedResponse } from "../chat/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { openStudio, SCREENSHOTS, type StudioHarness } from "./fixtures/browser.js";
import { buildShopAgent } from "./fixtures/shop-agent.js";

const WAIT = { timeout: 15_000 };

const refundCall = (
  id: string,
  orderId: string,
  amount: number,
  note: string,
  express: boolean,
) => ({
  id,
  name: "refund",
  arguments: { orderId, amount, note, express },
});

/** One chat for the whole file, in the order the steps below call it. */
const SCRIPT: ScriptedResponse[] = [
  // thread 1: two refunds in one turn
  {
    toolCalls: [
      refundCall("c1", "A-1", 20, "damaged", false),
      refundCall("c2", "A-2", 500, "late", true),
    ],
  },
  "Refunded 15 EUR on A-1; the refund on A-2 was refused.",
  // the fork of thread 1, continued
  "Refunded both.",
  // thread 2: a breakpoint before act
  { toolCalls: [refundCall("c3", "A-3", 30, "broken", false)] },
  "Refunded A-3.",
  // thread 3: the model fails, then works
  new Error("the model is down"),
  "Back up: how can I help?",
];

describe("studio actions in headless Chromium", () => {
  let h: StudioHarness;
  let firstThread = "";
  const status = () => h.page.getByTestId("status").innerText();
  const threadId = async () =>
    (await h.page.getByTestId("thread-label").innerText()).replace(/^thread /, "");
  const api = async (path: string) =>
    (await fetch(h.server.url + path)).json() as Promise<Record<string, never>>;
  beforeAll(async () => {
    h = await openStudio({
      graph: buildShopAgent({
        stateStore: new MemoryStateStore(),
        approve: true,
        delayMs: 5,
        script: SCRIPT,
      }),
    });
  });
  afterAll(() => h?.close());

  it("answers two approvals: a refused edit shows in place; then approve with edited arguments and deny with a reason", async () => {
    const { page } = h;
    await page.goto(`${h.server.url}/`);
    await expect.poll(status, WAIT).toBe("ready");
    await page.locator(".composer textarea").fill("Refund A-1 and A-2");
    await page.locator(".composer button.send").click();
    await expect.poll(status, WAIT).toBe("run interrupted");
    const forms = page.locator(".interrupt");
    expect(await forms.evaluateAll((els) => els.map((e) => e.getAttribute("data-key")))).toEqual([
      "1:0#c1",
      "1:0#c2",
    ]);
    // The arguments as a form from the tool's schema: labels, descriptions, typed inputs.
    const c1 = page.locator('.interrupt[data-key="1:0#c1"]');
    expect(await c1.locator(".question").innerText()).toBe(
      'Run tool "refund" with {"orderId":"A-1","amount":20,"note":"damaged","express":false}?',
    );
    expect(await c1.locator(".field-label").allInnerTexts()).toEqual([
      "orderId *",
      "amount *",
      "note *",
    ]);
    expect(await c1.locator(".field-help").allInnerTexts()).toEqual([
      "The order to refund",
      "Amount in EUR",
    ]);
    expect(await c1.locator('input[name="amount"]').getAttribute("type")).toBe("number");
    expect(await c1.locator('input[name="express"]').getAttribute("type")).toBe("checkbox");
    expect(await c1.locator('input[name="amount"]').inputValue()).toBe("20");
    // The paused thread takes no new message: the guard says why and offers a fork.
    expect(await page.locator(".composer textarea").count()).toBe(0);
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The run is paused at act, waiting for the answers above.",
    );
    expect(await page.locator(".paused-guard button").allInnerTexts()).toEqual([
      "Fork from an earlier event…",
    ]);
    await page.screenshot({ path: `${SCREENSHOTS}approval.png` });

    // An amount the tool's schema refuses (it must be positive): the message shows in place.
    await c1.locator('input[name="amount"]').fill("-5");
    expect(await c1.locator("button.approve").innerText()).toBe("Approve with these arguments");
    await c1.locator("button.approve").click();
    expect(await c1.locator(".given").innerText()).toBe("approved with edited arguments Change");
    expect(await page.locator(".interrupts h3").innerText()).toBe(
      "Waiting for your answer (1 of 2 given)",
    );
    // c2 denied with a reason in the same resume: refused with c1's answer, it is not kept.
    const c2 = page.locator('.interrupt[data-key="1:0#c2"]');
    await c2.locator("input.reason").fill("a reason given with the refused answer");
    await c2.locator("button.deny").click();
    await page.locator(".answer-error").waitFor(WAIT);
    expect(await page.locator(".answer-error").innerText()).toBe(
      'InvalidAnswer: Invalid arguments for tool "refund": amount: Too small: expected number to be >0 (call "c1")',
    );
    expect(await forms.count()).toBe(2);
    expect(await c1.locator('input[name="amount"]').inputValue()).toBe("20");
    await page.screenshot({ path: `${SCREENSHOTS}approval-refused.png` });

    // Now: 15 EUR with a note, and a denial with another reason (the one the tool message says).
    await c1.locator('input[name="amount"]').fill("15");
    await c1.locator('input[name="note"]').fill("damaged, half refunded");
    await c1.locator("button.approve").click();
    await c2.locator("input.reason").fill("over the 100 EUR limit");
    await c2.locator("button.deny").click();
    await expect.poll(status, WAIT).toBe("run completed");
    expect(await page.locator(".interrupts").count()).toBe(0);
    expect(await page.locator(".answer-error").count()).toBe(0);
    const card1 = page.locator('.tool-card[data-tool-call-id="c1"]');
    expect(await card1.locator(".tool-result").innerText()).toBe(
      "result\nrefunded 15 EUR on A-1 (damaged, half refunded)",
    );
    expect(await card1.locator(".tool-args .label").allInnerTexts()).toEqual([
      "arguments",
      "ran with (changed by an approval)",
    ]);
    const card2 = page.locator('.tool-card[data-tool-call-id="c2"]');
    expect(await card1.locator(".tool-status").innerText()).toBe("done");
    expect(await card2.locator(".tool-status").innerText()).toBe("denied");
    expect(await card2.locator(".tool-result").innerText()).toBe(
      "result\nTool call denied by a person: over the 100 EUR limit",
    );
    expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe(
      "Refunded 15 EUR on A-1; the refund on A-2 was refused.",
    );
    expect(await page.locator(".composer textarea").isEnabled()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}approval-answered.png` });
  });

  it("edits the state, forks with edited state, and forks from an event and continues there", async () => {
    const { page } = h;
    const id = await threadId();
    firstThread = id;
    await page.locator('.tab[data-tab="State"]').click();
    await page.locator("button.edit-state").click();
    await page.locator('.state-editor input[name="finalText"]').fill("Edited by a person.");
    expect(await page.locator(".state-editor .muted").innerText()).toBe("changed: finalText");
    await page.locator("button.save-state").click();
    await expect.poll(status, WAIT).toBe("state updated: finalText");
    expect(await page.locator('.state-tree [data-path="finalText"]').innerText()).toBe(
      'finalText: "Edited by a person."',
    );
    expect((await api(`/api/threads/${id}/state`)).state).toMatchObject({
      finalText: "Edited by a person.",
    });
    // A value the graph refuses: the message shows in the editor, which stays open.
    await page.locator("button.edit-state").click();
    await page.locator('.state-editor textarea[name="toolCalls"]').fill('[{"id": 1}]');
    await page.locator("button.save-state").click();
    await page.locator(".state-editor .answer-error").waitFor(WAIT);
    expect(await page.locator(".state-editor .answer-error").innerText()).toBe(
      'StateUpdateError: Invalid value for state field "toolCalls" written by the update given to updateState at toolCalls[0].id: Invalid input: expected string, received number',
    );
    await page.locator(".state-editor button.cancel").click();

    // History: choose the event after the model's tool calls; the chat shows the thread there.
    await page.locator('.tab[data-tab="History"]').click();
    const eventId = `${id}/main/2`;
    await page.locator(`[data-event-id="${eventId}"] button`).click();
    await expect.poll(() => page.locator(".time-travel").count(), WAIT).toBe(1);
    expect(await page.locator(".chat > .msg").count()).toBe(2);
    expect(await page.locator(".composer textarea").isDisabled()).toBe(true);
    await page.locator('.tab[data-tab="State"]').click();
    expect(await page.getByTestId("state-label").innerText()).toBe(`after ${eventId}`);

    // Fork with edited state: a new branch at that event, the edit written into it.
    await page.locator("button.fork-edited").click();
    // finalText is null there: a JSON box.
    await page.locator('.state-editor textarea[name="finalText"]').fill('"A forked draft"');
    await page.locator("button.save-state").click();
    await expect
      .poll(status, WAIT)
      .toMatch(new RegExp(`^forked branch b-[0-9a-f]+ at ${eventId}$`));
    const edited = await page.locator("select.branch-select").inputValue();
    expect(edited).toMatch(/^b-[0-9a-f]+$/);
    expect((await api(`/api/threads/${id}/state?branchId=${edited}`)).state).toMatchObject({
      finalText: "A forked draft",
    });
    expect((await api(`/api/threads/${id}/state`)).state).toMatchObject({
      finalText: "Edited by a person.",
    });

    // Back on main: fork from the same event as it is, and continue there.
    await page.locator("select.branch-select").selectOption("main");
    await page.locator('.tab[data-tab="History"]').click();
    await page.locator(`[data-event-id="${eventId}"] button`).click();
    await page.locator('.tab[data-tab="State"]').click();
    await page.locator("button.fork").click();
    await expect
      .poll(status, WAIT)
      .toMatch(new RegExp(`^forked branch b-[0-9a-f]+ at ${eventId}$`));
    expect(await page.locator("select.branch-select").inputValue()).not.toBe(edited);
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The thread stands in the middle of a run: act runs next.",
    );
    await page.screenshot({ path: `${SCREENSHOTS}fork.png` });
    await page.locator(".paused-guard button.continue").click();
    await expect.poll(status, WAIT).toBe("run interrupted");
    await page.locator('.interrupt[data-key="1:0#c1"] button.approve').click();
    await page.locator('.interrupt[data-key="1:0#c2"] button.approve').click();
    await expect.poll(status, WAIT).toBe("run completed");
    expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe("Refunded both.");
    await page.locator("select.branch-select").selectOption("main");
    await expect
      .poll(() => page.locator(".chat > .msg.ai").last().innerText(), WAIT)
      .toBe("Refunded 15 EUR on A-1; the refund on A-2 was refused.");
  });

  it("stops at a breakpoint and continues; continues a failed run", async () => {
    const { page } = h;
    await page.locator("button.new-thread").click();
    await page.locator("details.breakpoints > summary").click();
    await page.locator('input[name="before-act"]').check();
    expect(await page.locator("details.breakpoints > summary").innerText()).toBe("Breakpoints (1)");
    await page.locator(".composer textarea").fill("Refund A-3");
    await page.locator(".composer button.send").click();
    await expect.poll(status, WAIT).toBe("run interrupted");
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The run stopped at a breakpoint before act; act runs next.",
    );
    expect(await page.locator('.tool-card[data-tool-call-id="c3"] .tool-status').innerText()).toBe(
      "waiting",
    );
    await page.screenshot({ path: `${SCREENSHOTS}breakpoint.png` });
    await page.locator('input[name="before-act"]').uncheck();
    await page.locator(".paused-guard button.continue").click();
    await expect.poll(status, WAIT).toBe("run interrupted");
    await page.locator('.interrupt[data-key="1:0#c3"] button.approve').click();
    await expect.poll(status, WAIT).toBe("run completed");
    expect(await page.locator(".chat > .msg.ai").last().innerText()).toBe("Refunded A-3.");

    // The model fails: the error is told, the message box is guarded, Continue runs it again.
    await page.locator("button.new-thread").click();
    await page.locator(".composer textarea").fill("Hello?");
    await page.locator(".composer button.send").click();
    await expect.poll(status, WAIT).toBe("run failed: Error: the model is down");
    expect(await page.getByTestId("paused-guard").locator(".why").innerText()).toBe(
      "The last run failed before think finished: Error: the model is down",
    );
    await page.screenshot({ path: `${SCREENSHOTS}failed-run.png` });
    await page.locator(".paused-guard button.continue").click();
    await expect.poll(status, WAIT).toBe("run completed");
    expect(await page.locator(".chat > .msg").allInnerTexts()).toEqual([
      "Hello?",
      "Back up: how can I help?",
    ]);
    expect(h.errors).toEqual([]);
    // The one request refused with a status: the state edit the graph refused. (The refused
    // approval came as the run stream's error event, after the run had started.)
    expect(h.failed).toEqual([`400 POST /api/threads/${firstThread}/state`]);
    expect(h.outside).toEqual([]);
  });
});
