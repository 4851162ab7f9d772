import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/vite-plugin-svelte').SvelteConfig} */
export default {
  preprocess: vitePreprocess(),
  // Every component in this app uses runes; forcing runes mode turns any stray
  // Svelte 4 syntax (export let, $:) into a compile error instead of a silent mode switch.
  compilerOptions: { runes: true },
};
