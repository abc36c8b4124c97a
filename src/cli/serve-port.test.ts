/** `nodestep serve` on a port that another server holds: one line saying so, exit 1. */
import { createServer, type Server } from "node:net";
import { expect, it } from "vitest";
import { runCli } from "./program.js";

const REFUND = "src/cli/fixtures/refund.fixture.ts#buildRefundGraph";

it("serve on a port in use exits 1 with one line naming the port and what to pass", async () => {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const { port } = holder.address() as { port: number };
  try {
    let stdout = "";
    let stderr = "";
    const code = await runCli(["serve", REFUND, "--port", String(port), "--store", "memory"], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {},
    });
    expect({ code, stdout, stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `nodestep: port ${port} on 127.0.0.1 is in use; pass --port <n> (or --port 0 for a free one)\n`,
    });
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
