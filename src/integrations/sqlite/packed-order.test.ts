/**
 * The SQLite store's packed read (sqlite-state-sql.ts `readPacked`) concatenates a window's
 * rows with `group_concat` without `ORDER BY`: SQLite documents that order as arbitrary, so the
 * read relies on the range scan's order and checks it (`unpackEvents`). Here the scan is made
 * to run backwards (`PRAGMA reverse_unordered_selects`, which SQLite offers to find queries
 * that rely on an unspecified order): the packed text comes out of order, the check refuses it,
 * and the row-by-row read returns exactly the events the packed read returns, across the
 * 2,048-event windows' boundary and with text JSON escapes in every text column and the data.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { unpackEvents } from "../../stores/packed-events.js";
import type { NewEvent } from "../../stores/types.js";
import { SqliteStateStore } from "./index.js";
import { PACKED_EVENTS, readTransaction } from "./sqlite-state-read.js";
import { prepare } from "./sqlite-state-sql.js";

const dir = mkdtempSync(join(tmpdir(), "nodestep-packed-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Texts JSON escapes or that look like JSON's syntax (a lone surrogate only in data: a text column stores UTF-8). */
const TEXTS = [
  'q"uote',
  "back\\slash",
  "sep\u2028\u2029",
  "nul\u0000z",
  "emoji 😀",
  "tab\tnl\n",
  "]]",
  "\u007f",
];

it("falls back to the rows in order when the range scan runs backwards", async () => {
  const path = join(dir, "t.db");
  const store = new SqliteStateStore({ path });
  const count = PACKED_EVENTS + 3;
  const events: NewEvent[] = [];
  for (let i = 0; i < count; i++) {
    const t = TEXTS[i % TEXTS.length]!;
    events.push({
      type: "task_finished",
      runId: `r ${t}`,
      step: i,
      taskId: `k ${t}`,
      node: `n ${t}`,
      data: { text: t, lone: `x\ud800y${i}`, list: [t, i] },
    });
  }
  await store.append("t", "main", events, 0);
  const reader = new SqliteStateStore({ path });
  const packed = await reader.read("t", "main");
  await reader.close();
  expect(packed).toHaveLength(count);
  expect(packed.map((e) => [e.seq, e.runId, e.step, e.taskId, e.node, e.data])).toEqual(
    events.map((e, i) => [i + 1, e.runId, e.step, e.taskId, e.node, e.data]),
  );

  const db = new Database(path);
  try {
    db.pragma("reverse_unordered_selects = ON");
    const s = prepare(db);
    // The first window's text, rows last first: not what unpackEvents takes.
    const row = s.readPacked.get("t", "main", 0, PACKED_EVENTS) as { n: number; text: string };
    expect(row.n).toBe(PACKED_EVENTS);
    expect(row.text.startsWith(`[[${PACKED_EVENTS},"task_finished"`)).toBe(true);
    expect(unpackEvents("t", "main", row.text, 0, row.n)).toBeNull();
    // The read still gives every event, in order, as the packed read gave them.
    const rows = readTransaction(db, s)("t", "main", 0, count);
    expect(rows.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(JSON.stringify(rows)).toBe(JSON.stringify(packed));
  } finally {
    db.close();
    await store.close();
  }
});
