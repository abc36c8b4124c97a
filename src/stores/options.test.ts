/** `deleteThread` and `listThreads` refuse unknown or non-object options (they were ignored). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { caught } from "../../test/helpers.js";
import { ValueError } from "../errors/index.js";
import { SqliteStateStore } from "../integrations/sqlite/index.js";
import { MemoryStateStore } from "./index.js";
import type { NewEvent, StateStore } from "./types.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-store-opts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ev: NewEvent = {
  type: "run_started",
  runId: "r",
  step: 0,
  taskId: null,
  node: null,
  data: {},
};

for (const [name, make] of [
  ["memory", () => new MemoryStateStore()],
  ["sqlite", () => new SqliteStateStore({ path: join(dir, "s.db") })],
] as [string, () => StateStore][]) {
  it(`${name}: refuses unknown and non-object options, deleting nothing`, async () => {
    const s = make();
    await s.append("p", "main", [ev], 0);
    await s.append("p:kid", "main", [ev], 0);
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => s.deleteThread("p", { childern: true } as never),
        'unknown deleteThread option "childern"; the option is "children"',
      ],
      [() => s.deleteThread("p", 1 as never), "deleteThread options must be an object"],
      [() => s.deleteThread("p", null as never), "deleteThread options must be an object"],
      [
        () => s.listThreads({ limt: 1 } as never),
        'unknown listThreads option "limt"; the options are "limit", "offset"',
      ],
      [() => s.listThreads("x" as never), "listThreads options must be an object"],
    ];
    for (const [call, message] of cases) {
      const e = await caught(call);
      expect(e).toBeInstanceOf(ValueError);
      expect(e.message).toBe(message);
    }
    expect((await s.listThreads()).map((t) => t.threadId).sort()).toEqual(["p", "p:kid"]);
    await (s as { close?: () => Promise<void> }).close?.();
  });
}
