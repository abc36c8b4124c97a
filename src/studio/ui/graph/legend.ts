/**
 * The graph view's key: a swatch and a word for each mark the drawing shows now — the
 * running node while a run goes on, the nodes next while the thread waits, the path when
 * there is one — so that no mark is explained while it is not drawn, and the key never
 * reads like a status.
 */

/** One entry of the key: `mark` names its swatch's class (`swatch-<mark>`). */
export interface LegendItem {
  mark: "running" | "next" | "path";
  label: string;
}

/**
 * The key for what the drawing shows.
 *
 * @param shown.running - how many nodes are drawn as running.
 * @param shown.next - how many nodes are drawn as next.
 * @param shown.pathEdges - how many edges are drawn as taken.
 * @param shown.chosenEvent - whether a history event is chosen (the path goes up to it).
 */
export function legendItems(shown: {
  running: number;
  next: number;
  pathEdges: number;
  chosenEvent: boolean;
}): LegendItem[] {
  const items: LegendItem[] = [];
  if (shown.running > 0) items.push({ mark: "running", label: "running" });
  if (shown.next > 0) items.push({ mark: "next", label: "next" });
  if (shown.pathEdges > 0) {
    items.push({
      mark: "path",
      label: shown.chosenEvent ? "path to the chosen event" : "path of the last run",
    });
  }
  return items;
}
