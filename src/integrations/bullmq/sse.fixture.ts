/**
 * Test fixture (not part of the API): server-sent events read by the run-worker tests, and a
 * PostgreSQL schema and Redis key prefix of their own per test, removed after.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";

export const PG_URL = "postgres://postgres@127.0.0.1:5432/test";
export const REDIS = { host: "127.0.0.1", port: 6379 };

/** One server-sent event. */
export interface SseEvent {
  event: string;
  id: number | null;
  data: unknown;
}

/** The events of an SSE text (comment lines such as `: heartbeat` left out). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.split("\n").some((l) => l.startsWith("data: ")))
    .map((block) => {
      let event = "message";
      let id: number | null = null;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("id: ")) id = Number(line.slice(4));
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, id, data: JSON.parse(data.join("\n")) };
    });
}

/** A schema and a key prefix for one test; `cleanup()` drops the schema and deletes the keys. */
export function isolation(name: string) {
  const tag = randomBytes(4).toString("hex");
  const schema = `nodestep_${name}_${tag}`;
  const prefix = `nodestep-test-${name}-${tag}`;
  return {
    schema,
    prefix,
    storeUrl: `${PG_URL}?schema=${schema}`,
    async cleanup(): Promise<void> {
      const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await admin.end();
      }
      const redis = new Redis(REDIS);
      try {
        let cursor = "0";
        do {
          const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== "0");
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** Wait until `check` holds; throws after `ms` (only so that a broken test does not hang). */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
