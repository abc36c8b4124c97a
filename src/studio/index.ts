/**
 * The nodestep studio: one web page (`/`) and its script (`/studio.js`), served by
 * `createServer` (`nodestep serve`). See docs/studio.md.
 *
 * @module
 */
export { studioHtml } from "./page.js";
export { studioScript } from "./script.js";
