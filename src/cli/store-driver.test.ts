import { describe, expect, it } from "vitest";
import { importStoreIntegration, RunFailed } from "./load.js";

// A package no project installs: importing it fails as a missing better-sqlite3 does.
const MISSING = "nodestep-test-missing-driver";
const importMissing = () => import(/* @vite-ignore */ MISSING);

describe("importStoreIntegration", () => {
  it("turns a missing driver into one line that says what to install", async () => {
    const failure = await importStoreIntegration(
      "sqlite:.nodestep/nodestep.db",
      MISSING,
      `${MISSING}@12`,
      importMissing,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailed);
    expect((failure as RunFailed).message).toBe(
      `--store sqlite:.nodestep/nodestep.db needs the package ${MISSING}, which is not installed: run \`npm install ${MISSING}@12\`, or pick another store with --store (memory, sqlite:FILE or a postgres:// connection string)`,
    );
  });

  it("leaves a missing package other than the driver as it is", async () => {
    const failure = await importStoreIntegration(
      "sqlite:a.db",
      "better-sqlite3",
      "better-sqlite3@12",
      importMissing,
    ).catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(RunFailed);
    expect((failure as { code?: string }).code).toBe("ERR_MODULE_NOT_FOUND");
    expect(String((failure as Error).message)).toContain(`'${MISSING}'`);
  });

  it("leaves any other failure as it is, and returns the module when it loads", async () => {
    const boom = new Error("boom");
    await expect(
      importStoreIntegration("sqlite:a.db", "better-sqlite3", "better-sqlite3@12", () =>
        Promise.reject(boom),
      ),
    ).rejects.toBe(boom);
    const mod = { SqliteStateStore: "x" };
    await expect(
      importStoreIntegration("sqlite:a.db", "better-sqlite3", "better-sqlite3@12", async () => mod),
    ).resolves.toBe(mod);
  });
});
