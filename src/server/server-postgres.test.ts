// Two servers sharing one PostgreSQL store. Shared setup: server.fixture.ts.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { PostgresStateStore } from "../integrations/postgres/index.js";
import { createServer, type ListeningServer, listen } from "./index.js";
import { client } from "./server.fixture.js";

describe("two servers sharing one PostgreSQL store", () => {
  const URL = "postgres://postgres@127.0.0.1:5432/test";
  const schema = `nodestep_server_${randomBytes(4).toString("hex")}`;
  const stores: PostgresStateStore[] = [];
  const servers: ListeningServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const s of stores) await s.close();
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it("pauses a run on one server and answers it on the other", async () => {
    for (let i = 0; i < 2; i++) {
      const store = new PostgresStateStore({ connectionString: URL, schema });
      stores.push(store);
      servers.push(
        await listen(createServer({ graph: buildRefundGraph({ stateStore: store }) }), { port: 0 }),
      );
    }
    const a = client(() => servers[0]!.url);
    const b = client(() => servers[1]!.url);
    expect(await a.post("/api/threads/pg1/runs", { message: "refund 300" })).toMatchObject({
      status: 200,
      body: { status: "interrupted" },
    });
    expect(await b.get("/api/threads/pg1/state")).toMatchObject({
      status: 200,
      body: { status: "interrupted", next: ["approve"], state: { amount: 300 } },
    });
    expect(await b.post("/api/threads/pg1/runs", { resume: { approve: true } })).toMatchObject({
      status: 200,
      body: { status: "completed", state: { approved: true } },
    });
    const onA = await a.get("/api/threads/pg1/state");
    expect(onA.body).toMatchObject({ status: "completed", next: [], lastEventId: "pg1/main/8" });
    const listed = (await a.get("/api/threads")).body as { threads: { threadId: string }[] };
    expect(listed.threads.map((t) => t.threadId)).toEqual(["pg1"]);
  });
});
