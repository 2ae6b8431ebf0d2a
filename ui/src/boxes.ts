// Box presets of this desk (a packing desk has a handful of box sizes), kept in the browser's
// storage of this machine. Sizes in centimetres.
export type BoxPreset = { name: string; width: number; height: number; depth: number };

const KEY = 'packdesk.boxes';
const DEFAULTS: BoxPreset[] = [
  { name: 'Small', width: 20, height: 15, depth: 10 },
  { name: 'Medium', width: 30, height: 25, depth: 15 },
  { name: 'Large', width: 45, height: 35, depth: 25 },
];

export function boxPresets(): BoxPreset[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    return Array.isArray(v) ? v : DEFAULTS;
  } catch {
    return DEFAULTS;
  }
}

export function saveBoxPresets(p: BoxPreset[]) {
  localStorage.setItem(KEY, JSON.stringify(p));
}
