// The desk's words in the operator's language. Every text a user reads comes from the catalogues
// in ./messages (one JSON file per language, ICU MessageFormat: plurals and arguments), through
// svelte-i18n; each catalogue is loaded when it is first needed (English, every language's
// fallback, before the first screen: `ready`), so the bundle carries none of them.
// Numbers, dates, weights and money are written by the language's own rules (Intl).
//
// `t` and the formatters read `language.tag`, a rune: a screen that shows them redraws when the
// language changes, without being opened again.

import { init, locale, format, register, waitLocale } from 'svelte-i18n';

/** The languages the desk speaks, by their own names. */
export const LANGUAGES = [
  { tag: 'en', name: 'English' },
  { tag: 'de', name: 'Deutsch' },
  { tag: 'es', name: 'Español' },
  { tag: 'fr', name: 'Français' },
  { tag: 'it', name: 'Italiano' },
  { tag: 'nl', name: 'Nederlands' },
  { tag: 'pl', name: 'Polski' },
  { tag: 'pt', name: 'Português' },
] as const;
export type Language = (typeof LANGUAGES)[number]['tag'];

register('en', () => import('./messages/en.json'));
register('de', () => import('./messages/de.json'));
register('es', () => import('./messages/es.json'));
register('fr', () => import('./messages/fr.json'));
register('it', () => import('./messages/it.json'));
register('nl', () => import('./messages/nl.json'));
register('pl', () => import('./messages/pl.json'));
register('pt', () => import('./messages/pt.json'));
init({ fallbackLocale: 'en', initialLocale: 'en' });

/** Resolves once English (the first screen's words, and every language's fallback) is loaded. */
export function ready(): Promise<void> {
  return waitLocale('en');
}

/** The language the screens are in now. */
export const language = $state<{ tag: Language }>({ tag: 'en' });

/** One of the desk's languages for a BCP 47 tag (`pt-BR` is Portuguese), or null. */
export function supported(tag: string | null | undefined): Language | null {
  const base = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.find((l) => l.tag === base)?.tag ?? null;
}

/** The language of a session: the operator's, else the desk's setting, else the system's, else English. */
export function languageOf(operator?: string | null, desk?: string | null): Language {
  const system = typeof navigator === 'undefined' ? [] : [...(navigator.languages ?? []), navigator.language];
  for (const tag of [operator, desk, ...system]) {
    const l = supported(tag);
    if (l) return l;
  }
  return 'en';
}

/** Switches every screen to `tag` once its catalogue is loaded. */
export async function setLanguage(tag: Language): Promise<void> {
  if (tag === language.tag) return;
  await locale.set(tag);
  await waitLocale(tag);
  language.tag = tag;
  if (typeof document !== 'undefined') document.documentElement.lang = tag;
}

let formatter: (id: string, options?: { values?: Record<string, unknown> }) => string = (id) => id;
format.subscribe((f) => (formatter = f as typeof formatter));

/** The catalogue's text of `key` in the screen's language, with its arguments filled in. */
export function t(key: string, values?: Record<string, string | number | Date | null | undefined>): string {
  void language.tag; // read, so a template showing this text redraws when the language changes
  return formatter(key, values ? { values: values as Record<string, unknown> } : undefined);
}

/** Whether the catalogue has `key` (a server's message key the desk may not know yet). */
export function hasText(key: string): boolean {
  return t(key) !== key;
}

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n${language.tag}${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.NumberFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.NumberFormat(language.tag, options)));
  return f;
}
function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d${language.tag}${JSON.stringify(options)}`;
  let f = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat(language.tag, options)));
  return f;
}

const asDate = (d: string | number | Date) => (d instanceof Date ? d : new Date(d));

/** A number the language's way (1.234,5 in German). */
export function formatNumber(n: number, options: Intl.NumberFormatOptions = { maximumFractionDigits: 3 }): string {
  return numberFormat(options).format(n);
}

/** A weight with its unit (1,5 kg in German). */
export function formatWeight(value: number, unit: string, fractionDigits = 3): string {
  return `${formatNumber(value, { maximumFractionDigits: fractionDigits })} ${unit}`;
}

/** An amount of money the language's way (12,50 € in German); a code the browser does not know
 * is written after the number. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return numberFormat({ style: 'currency', currency }).format(amount);
  } catch {
    return `${formatNumber(amount, { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${currency}`;
  }
}

/** A date (a day `2026-11-24` is that day wherever the desk is). */
export function formatDate(d: string | number | Date, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }): string {
  const date = typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) ? new Date(`${d}T12:00:00`) : asDate(d);
  return dateFormat(options).format(date);
}

/** A moment: date and time, short. */
export function formatDateTime(d: string | number | Date, options: Intl.DateTimeFormatOptions = { dateStyle: 'short', timeStyle: 'short' }): string {
  return dateFormat(options).format(asDate(d));
}

/** A time of day. */
export function formatTime(d: string | number | Date, options: Intl.DateTimeFormatOptions = { timeStyle: 'medium' }): string {
  return dateFormat(options).format(asDate(d));
}

/** A country's name in the screen's language (Intl's, from its alpha-2 code); in English, or
 * where Intl has none, the desk's own name `fallback`. */
export function regionName(alpha2: string | undefined, fallback: string): string {
  if (language.tag === 'en' || !alpha2) return fallback;
  try {
    return new Intl.DisplayNames(language.tag, { type: 'region' }).of(alpha2.toUpperCase()) ?? fallback;
  } catch {
    return fallback;
  }
}

/** A list the language's way (a, b and c / a, b und c). */
export function formatList(items: string[], type: 'conjunction' | 'disjunction' = 'conjunction'): string {
  return new Intl.ListFormat(language.tag, { type }).format(items);
}

/** A table of catalogue keys read as a table of words: each entry is `t(key)` when it is read
 * (so a screen that shows one redraws with the language). */
export function wordsOf<K extends string>(keys: Record<K, string>): Record<K, string> {
  const words = {} as Record<K, string>;
  for (const [k, key] of Object.entries(keys) as [K, string][]) Object.defineProperty(words, k, { get: () => t(key), enumerable: true });
  return words;
}
