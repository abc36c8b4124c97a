import { describe, expect, it } from "vitest";
import { MemoryStateStore } from "./memory-state-store.js";
import { packJson, unpackJson } from "./memory-text.js";

describe("memory-text", () => {
  it("writes frequent pieces as one control character each and maps them back exactly", () => {
    const json = JSON.stringify({
      next: ["act"],
      update: { messages: [{ type: "ai", id: "m1", content: "Hi", toolCalls: [] }] },
      finalText: null,
    });
    const packed = packJson(json);
    expect(packed).toBe('\u000e"act"],\u000f\u0003m1",\u000bHi",\u0008}]},\u0018\u001b}');
    expect(packed.length).toBe(27);
    expect(json.length).toBe(111);
    expect(unpackJson(packed)).toBe(json);
  });

  it("gives back text whose strings hold the pieces, control characters and other scripts", () => {
    const values = [
      { k: '"content":"x" null {"type":"ai","id":"', s: "\u0003\u0001\u0002\u001f\n" },
      { 'weird"key': 'a\\"update":{', null: [null, "annulled", "é😀"] },
      "null",
      [],
      { status: "completed" },
    ];
    for (const v of values) {
      const json = JSON.stringify(v);
      expect(unpackJson(packJson(json))).toBe(json);
    }
    // Text without the pieces stays as it is.
    expect(packJson('{"a":1}')).toBe('{"a":1}');
  });

  it("keeps event data the store gives back as appended", async () => {
    const store = new MemoryStateStore({ now: () => 1_700_000_000_000 });
    const data = {
      update: { messages: [{ type: "tool", id: "t1", content: '{"type":"ai","id":"x"}' }] },
      text: "null \u0003 \\u0004",
    };
    await store.append(
      "t",
      "main",
      [{ type: "step_committed", runId: "r", step: 0, taskId: null, node: null, data }],
      0,
    );
    expect((await store.read("t", "main"))[0]!.data).toEqual(data);
    expect((await store.getEvent("t/main/1"))!.data).toEqual(data);
  });
});
