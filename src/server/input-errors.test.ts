/** A run input that does not fit the state: the 400 names the field, the path and what was expected. */
import { describe, expect, it } from "vitest";
import { buildReactAgent } from "../agents/index.js";
import { ScriptedChat } from "../chat/index.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./app.js";

describe("POST …/runs with an input that does not fit the state", () => {
  const app = createServer({
    graph: buildReactAgent(new ScriptedChat([]), { tools: [], stateStore: new MemoryStateStore() }),
  });
  const post = async (path: string, input: unknown) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });
    return { status: res.status, body: await res.json() };
  };

  it('400 StateUpdateError saying where and what was expected (not zod\'s bare "Invalid input")', async () => {
    for (const path of ["/api/threads/t1/runs", "/api/threads/t1/runs/stream"]) {
      expect(await post(path, { messages: 5 })).toEqual({
        status: 400,
        body: {
          error: {
            type: "StateUpdateError",
            message:
              'Invalid update for state field "messages" written by the run input: Invalid input: expected array or object, received number',
          },
        },
      });
      expect(await post(path, { messages: [{ role: "user", content: "hi" }] })).toEqual({
        status: 400,
        body: {
          error: {
            type: "StateUpdateError",
            message:
              "Invalid update for state field \"messages\" written by the run input at messages[0].type: Invalid discriminator value. Expected 'system' | 'human' | 'ai' | 'tool'",
          },
        },
      });
    }
  });
});
