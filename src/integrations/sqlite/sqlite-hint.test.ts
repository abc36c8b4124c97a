/**
 * `sqliteHint`: what a SQLite error's message adds, by its code, opening the store or not.
 */
import { describe, expect, it } from "vitest";
import { sqliteHint } from "./sqlite-state-open.js";

const error = (code: string) => Object.assign(new Error("x"), { code });

describe("sqliteHint", () => {
  it("says a read-only file cannot be opened at all, and that reads work on one already open", () => {
    expect(sqliteHint(error("SQLITE_READONLY"), true)).toBe(
      " The file or its directory is read-only: the store opens its file for writing (WAL mode, and a version 1 file's migration), even to read; open it on a file and directory this process can write.",
    );
    expect(sqliteHint(error("SQLITE_READONLY_DBMOVED"))).toBe(
      " The file or its directory is read-only: reading works, writing does not; open the store on a file this process can write.",
    );
  });

  it("names another connection of this process as well as another process for a held lock", () => {
    expect(sqliteHint(error("SQLITE_BUSY"), true)).toBe(
      " Another connection (another process, or another store object in this one) held the write lock too long, or a store opened with exclusive: true holds the file; retry or raise busyTimeoutMs.",
    );
    expect(sqliteHint(error("SQLITE_IOERR"))).toBe("");
    expect(sqliteHint(new Error("no code"))).toBe("");
  });
});
