import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

// TypeScript in components (vite build and svelte-check read this).
export default { preprocess: vitePreprocess() };
