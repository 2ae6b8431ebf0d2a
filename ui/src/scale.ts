// The desk scale as the screens show it: its state in words and its weight in the form's unit.
import type { ScaleState, WeightUnit } from './types';
import { wordsOf } from './i18n/index.svelte';

const perKg: Record<WeightUnit, number> = { kg: 1, g: 1000, lb: 2.2046226218, oz: 35.27396195 };

/** A weight in another unit, to the form's precision (3 decimals). */
export function convertWeight(w: { value: number; unit: WeightUnit }, to: WeightUnit): number {
  return Math.round((w.value / perKg[w.unit]) * perKg[to] * 1000) / 1000;
}

/** The scale's status in plain words. */
export const scaleWords: Record<ScaleState['status'], string> = wordsOf({
  off: 'scale.off',
  disconnected: 'scale.disconnected',
  waiting: 'scale.waiting',
  zero: 'scale.zero',
  in_motion: 'scale.inMotion',
  stable: 'scale.stable',
  under_zero: 'scale.underZero',
  over_weight: 'scale.overWeight',
  fault: 'scale.fault',
  needs_calibration: 'scale.needsCalibration',
  needs_rezeroing: 'scale.needsRezeroing',
  unknown: 'scale.unknown',
});

/** A stable weight above zero: one to put on a parcel. */
export function weightToTake(s: ScaleState | null): { value: number; unit: WeightUnit } | null {
  return s?.stable && s.weight && s.weight.value > 0 ? s.weight : null;
}
