// Numbers as packers type them: `1,5` (Spain, Germany, France, Poland) and `1.5` (the UK, the US)
// are both one and a half; a separator is never dropped (`1,5` is not 15) and what is not a number
// is refused (null), never read as 0. Plain TypeScript over Intl; its one import is the desk's words
// (`t`, for formNumbers), so a test loads it through vite, as the page does.

import { t } from './i18n/index.svelte';

/** The decimal mark and the grouping mark of `locale` (none given: the desk's, the browser's). */
function marks(locale?: string): { decimal: string; group: string } {
  const parts = new Intl.NumberFormat(locale).formatToParts(12345.6);
  return {
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
  };
}

/**
 * A typed number, or null when the text is not one. With both `.` and `,` the last one is the
 * decimal mark (`1.234,5` and `1,234.5` are 1234.5); a lone one is decimal (`1,5` is 1.5 in any
 * locale) unless it is the locale's grouping mark before exactly three digits (`1,234` in English).
 */
export function parseDecimal(text: string, locale?: string): number | null {
  // Spaces and apostrophes only ever group digits (1 234,5 in France, 1'234.5 in Switzerland).
  const t = text.trim().replace(/[\s'’]/g, '');
  const m = /^([+-]?)([\d.,]*)$/.exec(t);
  if (!m || !/\d/.test(m[2])) return null;
  const [, sign, body] = m;
  const dot = body.lastIndexOf('.');
  const comma = body.lastIndexOf(',');
  let decimal: string | null;
  if (dot >= 0 && comma >= 0) decimal = dot > comma ? '.' : ',';
  else if (dot < 0 && comma < 0) decimal = null;
  else {
    const mark = dot >= 0 ? '.' : ',';
    const once = body.indexOf(mark) === body.lastIndexOf(mark);
    const { decimal: localDecimal, group } = marks(locale);
    const grouping = mark === group && mark !== localDecimal && /^\d{1,3}[.,]\d{3}$/.test(body);
    decimal = once && !grouping ? mark : null;
  }
  const [whole, fraction = '', extra] = decimal ? body.split(decimal) : [body];
  if (extra !== undefined || /[.,]/.test(fraction)) return null;
  // Whatever separator is left groups digits in threes: 1.234.567 or 1,234.
  if (/[.,]/.test(whole) && !/^\d{1,3}([.,])\d{3}(\1\d{3})*$/.test(whole)) return null;
  const value = Number(`${sign}${whole.replace(/[.,]/g, '') || '0'}.${fraction || '0'}`);
  return Number.isFinite(value) ? value : null;
}

/** A number as the desk's locale writes it (1,5 in Spain): what goes into a field the desk fills. */
export function formatDecimal(value: number, locale?: string): string {
  return String(value).replace('.', marks(locale).decimal);
}

/** A reader of a form's optional numbers: each typed text's value (null when empty or not a
 * number), with the ones that are not numbers noted in `problems` by their field's path. */
export function formNumbers(problems: Record<string, string>) {
  return (text: string, at: string): number | null => {
    if (!text.trim()) return null;
    const n = parseDecimal(text);
    if (n === null) problems[at] = t('numbers.notANumber', { text });
    return n;
  };
}
