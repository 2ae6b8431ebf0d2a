// Box presets of this desk (a packing desk has a handful of box sizes), kept in the browser's
// storage of this machine. Sizes in centimetres.
import { t } from './i18n/index.svelte';

export type BoxPreset = { name: string; width: number; height: number; depth: number };

const KEY = 'packdesk.boxes';
// The sizes a desk starts with, named in the desk's language when they are first shown.
const defaults = (): BoxPreset[] => [
  { name: t('boxes.small'), width: 20, height: 15, depth: 10 },
  { name: t('boxes.medium'), width: 30, height: 25, depth: 15 },
  { name: t('boxes.large'), width: 45, height: 35, depth: 25 },
];

export function boxPresets(): BoxPreset[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    return Array.isArray(v) ? v : defaults();
  } catch {
    return defaults();
  }
}

export function saveBoxPresets(p: BoxPreset[]) {
  localStorage.setItem(KEY, JSON.stringify(p));
}
