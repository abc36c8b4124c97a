/**
 * The nodestep studio: a Preact page built by Vite from src/studio/ui/ into dist/studio/
 * (scripts/build-studio.mjs), served by `createServer` (`nodestep serve`) at `/`. See
 * docs/studio.md.
 *
 * @module
 */
export {
  defaultStudioDir,
  missingStudioHtml,
  STUDIO_BUILD_COMMAND,
  type StudioFile,
  studioFiles,
} from "./assets.js";
