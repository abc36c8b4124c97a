/**
 * Setup of the `cold` vitest project: every graph call folds its thread from the store (the
 * position cache is never read), as a new graph object would. See vitest.config.ts.
 */
import { setColdMode } from "../../src/graph/cold-mode.js";

setColdMode(true);
