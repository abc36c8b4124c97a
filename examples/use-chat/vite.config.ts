// The useChat page: React through Vite's own JSX transform (Oxc), and `/api` proxied to
// `nodestep serve` (NODESTEP_URL, default its port 7331), so the page and the API share one
// origin in `vite` (development) and `vite preview` (the built page) alike.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const target = process.env.NODESTEP_URL ?? "http://127.0.0.1:7331";
const proxy = { "/api": { target, changeOrigin: true } };

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  base: "./",
  oxc: { jsx: { runtime: "automatic" } },
  server: { proxy },
  preview: { proxy },
  build: {
    // React, react-dom, @ai-sdk/react and ai in one file: about 600 kB minified, 180 kB gzipped.
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // swr (under @ai-sdk/react) starts with "use client", which a client bundle has no use for.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
});
