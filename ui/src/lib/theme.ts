// Light / dark / system. "system" follows the OS (prefers-color-scheme); the other two
// pin the palette by setting data-theme on <html>, which app.css reads.

import type { Theme } from './types';

export function applyTheme(theme: Theme, root: { dataset: DOMStringMap } = document.documentElement): void {
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}
