import { expect, it } from "vitest";
import { legendItems } from "./legend.ts";

it("keys only the marks drawn: running while a run goes on, next while waiting, the path", () => {
  const none = { running: 0, next: 0, pathEdges: 0, chosenEvent: false };
  expect(legendItems(none)).toEqual([]);
  expect(legendItems({ ...none, running: 1, pathEdges: 2 })).toEqual([
    { mark: "running", label: "running" },
    { mark: "path", label: "path of the last run" },
  ]);
  expect(legendItems({ ...none, next: 1, pathEdges: 3, chosenEvent: true })).toEqual([
    { mark: "next", label: "next" },
    { mark: "path", label: "path to the chosen event" },
  ]);
});
