// electron-vite build of the desktop app. Output (package.json "main" points at the first):
//   out/main/index.js        main process, ES module (package.json has "type": "module")
//   out/preload/index.cjs    preload, CommonJS: Electron cannot load an ES-module preload in a sandboxed renderer
//   out/renderer/index.html  renderer (React), plus out/renderer/assets/*
// The main process bundles the server (src-server, TypeScript) with it. What the server reads from
// disk at run time is found relative to the bundle: out/main/migrations (copied here), and
// package.json, build-info.json and resources/ two levels up (shipped by build/electron-builder.yml).
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The SQL migrations, read from a folder beside the code (src-server/storage/database.ts). */
function copyMigrations(): Plugin {
  return {
    name: 'hangar:copy-migrations',
    writeBundle() {
      cpSync(resolve(root, 'src-server/storage/migrations'), resolve(root, 'out/main/migrations'), { recursive: true });
    },
  };
}

export default defineConfig({
  main: {
    plugins: [copyMigrations()],
    build: {
      // Every package.json dependency stays a runtime import from node_modules; the native ones
      // (better-sqlite3, sharp: unpacked from the asar by electron-builder) are listed explicitly so
      // they stay external even if they move between dependency lists.
      externalizeDeps: { include: ['better-sqlite3', 'sharp'] },
      outDir: resolve(root, 'out/main'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/index.ts') },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // the console is also downloaded by browsers on the LAN (/console): ship it minified
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
      },
    },
  },
});
