import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

// A Node process in which the three SDKs cannot be resolved, as if they were not installed:
// importing nodestep and every integration subpath must still work, and the first call must
// say which package to install.
it("importing nodestep and the integration subpaths loads no SDK; a call without it says what to install", async () => {
  const dir = mkdtempSync(join(tmpdir(), "nodestep-lazy-"));
  writeFileSync(
    join(dir, "hooks.mjs"),
    `export async function resolve(specifier, context, next) {
  if (/^(openai|@anthropic-ai\\/sdk|ollama)(\\/|$)/.test(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "'");
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${join(dir, "hooks.mjs")}`).href)});\n`,
  );
  const script = `
await import("nodestep");
const { OpenAIChat } = await import("nodestep/openai");
const { AnthropicChat } = await import("nodestep/anthropic");
const { OllamaChat } = await import("nodestep/ollama");
// Never a real provider, even if the hook failed: port 9 on this machine.
const off = "http://127.0.0.1:9";
const request = { messages: [], tools: [], toolChoice: null, outputSchema: null };
for (const chat of [new OpenAIChat({ model: "m", apiKey: "k", baseURL: off }), new AnthropicChat({ model: "m", apiKey: "k", baseURL: off }), new OllamaChat({ model: "m", host: off })]) {
  try { await chat.complete(request); } catch (e) { console.log(e.name, e.provider, e.retryable, e.message); }
}
`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--import", join(dir, "register.mjs"), "--input-type=module", "-e", script],
    { cwd: root, timeout: 60_000 },
  );
  expect(stdout).toBe(
    [
      'ModelProviderError openai false OpenAIChat needs the "openai" package, which is not installed: run `npm install openai`',
      'ModelProviderError anthropic false AnthropicChat needs the "@anthropic-ai/sdk" package, which is not installed: run `npm install @anthropic-ai/sdk`',
      'ModelProviderError ollama false OllamaChat needs the "ollama" package, which is not installed: run `npm install ollama`',
      "",
    ].join("\n"),
  );
});
