import { describe, expect, it } from "vitest";
import { CLEAR_LINE, ProgressLine, progressEnabled, progressText } from "./progress.js";

describe("the progress line of nodestep run", () => {
  it("is shown only for text output on a terminal", () => {
    expect([
      progressEnabled({ json: false, tty: true }),
      progressEnabled({ json: true, tty: true }),
      progressEnabled({ json: false, tty: false }),
      progressEnabled({ json: true, tty: false }),
    ]).toEqual([true, false, false, false]);
  });

  it("reads frame, label and seconds from the time since the label was set", () => {
    expect(progressText("think", 0)).toBe("⠋ think · 0.0s");
    expect(progressText("think", 1234)).toBe("⠹ think · 1.2s");
    expect(progressText("act: order_status", 999)).toBe("⠏ act: order_status · 1.0s");
    expect(progressText("think", 10_060)).toBe("⠋ think · 10.1s");
    expect(progressText("think", -5)).toBe("⠋ think · 0.0s");
    expect(progressText(null, 500)).toBeNull();
  });

  it("draws over itself, restarts its clock on a new label, and clears once", () => {
    let now = 1000;
    const writes: string[] = [];
    const line = new ProgressLine(
      (t) => writes.push(t),
      () => now,
    );
    line.set("think");
    now = 1250;
    line.set("think"); // same label: the clock goes on
    now = 1400;
    line.set("act");
    now = 2500;
    line.draw();
    line.clear();
    line.clear(); // nothing shown: nothing written
    line.set(null);
    expect(writes).toEqual([
      `${CLEAR_LINE}⠋ think · 0.0s`,
      `${CLEAR_LINE}⠹ think · 0.3s`,
      `${CLEAR_LINE}⠋ act · 0.0s`,
      `${CLEAR_LINE}⠙ act · 1.1s`,
      CLEAR_LINE,
    ]);
  });
});
