/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The UI is served by packdesk-server (or the desktop shell) from ui/dist, same origin as the API.
export default defineConfig({
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: true },
  // Unit tests (npm test): the controllers' runes compiled for the browser, so they react.
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: { include: ['src/**/*.test.ts'], setupFiles: ['src/i18n/test-setup.ts'] },
});
