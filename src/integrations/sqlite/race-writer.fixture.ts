/**
 * Test fixture (not part of the API): appends `count` events tagged `tag` to thread "t" branch
 * "main" of the SQLite store at `path`, re-reading the branch and retrying whenever another
 * writer got there first. Prints `done <tag> <conflicts>` at the end.
 * Run with `node --import tsx <this file> <path> <tag> <count>`.
 *
 * @module
 */
import { ConcurrentWriteError } from "../../errors/index.js";
import { SqliteStateStore } from "./sqlite-state-store.js";

const [path, tag, countText] = process.argv.slice(2);
if (!path || !tag || !countText)
  throw new Error("usage: race-writer.fixture.ts <path> <tag> <count>");
const store = new SqliteStateStore({ path });
let conflicts = 0;
for (let i = 0; i < Number(countText); ) {
  const last = (await store.getBranch("t", "main"))?.lastSeq ?? 0;
  try {
    await store.append(
      "t",
      "main",
      [{ type: "tool_result", runId: tag, step: null, taskId: null, node: null, data: { tag, i } }],
      last,
    );
    i++;
  } catch (e) {
    if (!(e instanceof ConcurrentWriteError)) throw e;
    conflicts++;
  }
}
await store.close();
process.stdout.write(`done ${tag} ${conflicts}\n`);
