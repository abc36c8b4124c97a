import { describe, expect, it } from "vitest";
import { runExample } from "./run-example.js";

const expected: Record<string, string> = {
  "examples/graphs/counter.ts": "3 true\nstep 0 | step 1 | step 2\n",
  "examples/graphs/fan-out.ts": "[ 'graph=5', 'node=4', 'superstep=9' ]\n",
  "examples/graphs/streaming.ts": [
    'custom 0 shout {"progress":"shouting"}',
    'updates 0 shout {"text":"HELLO STREAM"}',
    'values 0 - {"text":"HELLO STREAM","words":0}',
    'updates 1 count {"words":2}',
    'values 1 - {"text":"HELLO STREAM","words":2}',
    "",
  ].join("\n"),
  "examples/threads/approval.ts": [
    'interrupted {"key":"refund","value":{"question":"Refund 250 EUR?"},"node":"review","taskId":"0:0"}',
    "completed approved",
    "",
  ].join("\n"),
  "examples/threads/time-travel.ts": [
    "run_started step_committed run_finished run_started step_committed run_finished",
    "branch: first, seen 1, another second, seen 3",
    "main:   first, seen 1, second, seen 3",
    "",
  ].join("\n"),
  "examples/threads/busy-threads.ts": [
    "enqueue: first run completed; hello, thought, answered, first, thought, answered, second, thought, answered",
    "  run_started step_committed step_committed run_finished run_started step_committed step_committed run_finished",
    "interrupt: first run stopped; hello, thought, answered, first, thought, second, thought, answered",
    "  run_started step_committed run_finished run_started step_committed step_committed run_finished",
    "rollback: first run stopped; hello, thought, answered, second, thought, answered",
    "  run_started step_committed run_finished rolled_back run_started step_committed step_committed run_finished",
    "",
  ].join("\n"),
  "examples/stores/sqlite-events.ts": [
    "appended chat-1/main/1, chat-1/main/2, chat-1/main/3",
    "stale writer: ConcurrentWriteError",
    'main 1 run_started {"input":"What is 2 + 2?"}',
    'main 2 step_committed {"update":{"answer":4}}',
    'main 3 run_finished {"status":"completed"}',
    "fork retry from main/2, lastSeq 2",
    "retry 1 main run_started",
    "retry 2 main step_committed",
    "retry 3 retry run_finished",
    "threads: chat-1 [main, retry]",
    "",
  ].join("\n"),
  "examples/chat/scripted.ts": [
    'tool_calls [{"id":"call_1","name":"get_order_status","arguments":{"orderId":"A-1001"},"argumentsError":null}]',
    'chunk: "Order "',
    'chunk: "A-1001 "',
    'chunk: "has "',
    'chunk: "shipped."',
    "You sent 1 message(s).",
    "3 requests recorded",
    "ModelProviderError: ScriptedChat has no response for request 4: it was given 3 responses. Add a response for every model call the run makes.",
    "",
  ].join("\n"),
  "examples/policies/retry-and-cache.ts":
    "sunny in Lisbon (2 calls)\nsunny in Lisbon (2 calls, cached)\n",
};

describe("graph and thread examples print what the docs say", () => {
  for (const [file, out] of Object.entries(expected)) {
    it(file, async () => {
      expect(await runExample(file)).toBe(out);
    });
  }
});
