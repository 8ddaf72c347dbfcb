// electron-vite build of the desktop app. Output (package.json "main" points at the first):
//   out/main/index.js        main process, ES module (package.json has "type": "module")
//   out/preload/index.cjs    preload, CommonJS: Electron cannot load an ES-module preload in a sandboxed renderer
//   out/renderer/index.html  renderer (React), plus out/renderer/assets/*
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  main: {
    build: {
      // Every package.json dependency stays a runtime require/import from node_modules; better-sqlite3
      // (native module, unpacked from the asar by electron-builder) is listed explicitly so it stays
      // external even if it moves between dependency lists.
      externalizeDeps: { include: ['better-sqlite3'] },
      outDir: resolve(root, 'out/main'),
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/index.ts') },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: { include: ['better-sqlite3'] },
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
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
      },
    },
  },
});
