import { describe, expect, it } from "vitest";
import { MemoryStoreError } from "../errors/index.js";
import { InMemoryStore } from "./in-memory-store.js";
import { exportNamespace, importNamespace } from "./transfer.js";

async function lines(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of it) out.push(l);
  return out;
}

describe("exportNamespace / importNamespace", () => {
  it("exports JSON lines in order and imports them with their times and the TTL left, skipping expired ones", async () => {
    let now = 100;
    const a = new InMemoryStore({ now: () => now });
    await a.put(["u", "1"], "b", { v: 1 }, { ttlMs: 50 });
    now = 105;
    await a.put(["u", "1"], "b", { v: 2 }, { ttlMs: 45 });
    now = 100;
    await a.put(["u", "1"], "a", { v: 1 });
    await a.put(["u", "2"], "c", { v: 3 }, { ttlMs: 10 });
    await a.put(["other"], "x", { v: 0 });
    const exported = await lines(exportNamespace(a, ["u"]));
    expect(exported).toEqual([
      '{"namespace":["u","1"],"key":"a","value":{"v":1},"createdAt":100,"updatedAt":100,"expiresAt":null}',
      '{"namespace":["u","1"],"key":"b","value":{"v":2},"createdAt":100,"updatedAt":105,"expiresAt":150}',
      '{"namespace":["u","2"],"key":"c","value":{"v":3},"createdAt":100,"updatedAt":100,"expiresAt":110}',
    ]);
    now = 120;
    const b = new InMemoryStore({ now: () => now });
    expect(await importNamespace(b, ["", ...exported], { now: () => now })).toBe(2);
    expect(await b.list([])).toEqual([
      {
        namespace: ["u", "1"],
        key: "a",
        value: { v: 1 },
        createdAt: 100,
        updatedAt: 100,
        expiresAt: null,
      },
      {
        namespace: ["u", "1"],
        key: "b",
        value: { v: 2 },
        createdAt: 100,
        updatedAt: 105,
        expiresAt: 150,
      },
    ]);
    // A line without times (written by hand) gets the import's.
    expect(await importNamespace(b, ['{"namespace":["h"],"key":"k","value":{}}'])).toBe(1);
    expect(await b.get(["h"], "k")).toMatchObject({ createdAt: 120, updatedAt: 120 });
  });

  it("pages through more than 1,000 items", async () => {
    const a = new InMemoryStore();
    for (let i = 0; i < 1_005; i++) await a.put(["n"], String(i).padStart(4, "0"), { i });
    const exported = await lines(exportNamespace(a, ["n"]));
    expect(exported.length).toBe(1_005);
    expect(JSON.parse(exported[1_004]!).key).toBe("1004");
  });

  it("names the line at fault", async () => {
    const b = new InMemoryStore();
    await expect(
      importNamespace(b, ['{"namespace":["a"],"key":"k","value":{}}', "{oops"]),
    ).rejects.toThrow(MemoryStoreError);
    await expect(importNamespace(b, ['{"namespace":["a"],"key":"k"}'])).rejects.toThrow(
      "import: line 1 is not an exported item { namespace, key, value, createdAt, updatedAt, expiresAt }",
    );
    await expect(importNamespace(b, ['{"namespace":[],"key":"k","value":{}}'])).rejects.toThrow(
      "import: line 1: put: a namespace has 1 to 16 labels, got 0",
    );
    await expect(
      importNamespace(b, ['{"namespace":["a"],"key":"k","value":{},"createdAt":"yesterday"}']),
    ).rejects.toThrow(
      "import: line 1 is not an exported item { namespace, key, value, createdAt, updatedAt, expiresAt }",
    );
    await expect(
      importNamespace(b, [
        '{"namespace":["a"],"key":"k","value":{},"createdAt":9,"updatedAt":8,"expiresAt":null}',
      ]),
    ).rejects.toThrow(
      'import: line 1: put: updatedAt (8) of item "k" of namespace ["a"] is before its createdAt (9)',
    );
  });
});
