import { describe, expect, it } from "vitest";
import { buildRefundGraph } from "../cli/fixtures/refund.fixture.js";
import { MemoryStateStore } from "../stores/index.js";
import { createServer } from "./index.js";
import { graphForModel } from "./model-choice.js";

describe("model choice: names of Object.prototype's members", () => {
  const store = new MemoryStateStore();
  const graph = buildRefundGraph({ stateStore: store });
  const other = buildRefundGraph({ stateStore: store });
  const models = { current: "m:a", graphs: { "m:b": other } };
  const inherited = ["toString", "__proto__", "constructor", "hasOwnProperty", "valueOf"];

  it("graphForModel finds only the choices' own names", () => {
    expect(graphForModel(graph, models, "m:b")).toBe(other);
    expect(graphForModel(graph, models, "m:a")).toBe(graph);
    for (const name of inherited) {
      const e = (() => {
        try {
          graphForModel(graph, models, name);
        } catch (err) {
          return err as { status: number; type: string; message: string };
        }
        return null;
      })();
      expect(e).toMatchObject({
        status: 400,
        type: "UnknownModel",
        message: `model "${name}" is not one this server offers; choose one of: m:a, m:b`,
      });
    }
  });

  it("a run naming one answers 400 UnknownModel, not 500, on both run routes", async () => {
    const app = createServer({ graph, models });
    for (const path of ["/api/threads/t1/runs", "/api/threads/t1/runs/stream"]) {
      for (const model of inherited) {
        const res = await app.fetch(
          new Request(`http://127.0.0.1${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ message: "Refund 5", model }),
          }),
        );
        expect({ status: res.status, body: await res.json() }).toEqual({
          status: 400,
          body: {
            error: {
              type: "UnknownModel",
              message: `model "${model}" is not one this server offers; choose one of: m:a, m:b`,
            },
          },
        });
      }
    }
    expect((await graph.history("t1")).length).toBe(0);
  });
});
