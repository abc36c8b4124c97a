/**
 * The order of the CLI's errors: a bad `--input` is reported before anything about the graph's
 * store, and before the run prints its header; commander's own errors carry the `nodestep:`
 * prefix of every other CLI error.
 */
import { describe, expect, it } from "vitest";
import { runCaptured } from "./cli-capture.fixture.js";

const STORELESS = "src/cli/fixtures/storeless.fixture.ts#counter";
const FACTORY = "src/cli/fixtures/storeless.fixture.ts#build";

const cli = (argv: string[]) => runCaptured(argv);

describe("nodestep run: the input is checked first", () => {
  it("reports a bad --input of a storeless graph as the input's error, not the missing store", async () => {
    expect(await cli(["run", STORELESS, "--input", '{"count":"x"}'])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'nodestep: --input does not fit the graph\'s state: Invalid value for state field "count" written by the run input: Invalid input: expected number, received string\n',
    });
    expect(await cli(["run", STORELESS, "--input", '{"nope":1}'])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'nodestep: --input does not fit the graph\'s state: The run input wrote unknown state field "nope"; declared fields: count\n',
    });
  });

  it("still reports the missing store when the input fits", async () => {
    expect(await cli(["run", STORELESS, "--input", '{"count":1}'])).toEqual({
      code: 2,
      stdout: "",
      stderr: `nodestep: ${STORELESS} is a graph without a stateStore; give it one, or export a function ({ stateStore }) => Graph\n`,
    });
  });

  it("prints no run header before an input error (a factory on the memory store)", async () => {
    expect(await cli(["run", FACTORY, "--store", "memory", "-i", '{"count":"x"}'])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'nodestep: --input does not fit the graph\'s state: Invalid value for state field "count" written by the run input: Invalid input: expected number, received string\n',
    });
    expect(await cli(["run", FACTORY, "--store", "memory", "-m", "hi"])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'nodestep: --message does not fit the graph\'s state: The run input wrote unknown state field "messages"; declared fields: count\n',
    });
  });

  it("runs a fitting input as before", async () => {
    const r = await cli(["run", FACTORY, "--store", "memory", "-i", '{"count":1}', "-t", "t1"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("thread t1 · branch main · graph counter · store memory");
    expect(r.stderr).toBe("");
  });
});

describe("commander's errors", () => {
  it("say nodestep: like the CLI's other errors", async () => {
    expect(await cli(["run", FACTORY, "--bogus"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "nodestep: unknown option '--bogus'\n(run nodestep --help for usage)\n",
    });
    expect(await cli(["bogus"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "nodestep: unknown command 'bogus'\n(run nodestep --help for usage)\n",
    });
    expect(await cli(["resume"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "nodestep: missing required argument 'thread'\n(run nodestep --help for usage)\n",
    });
  });
});
