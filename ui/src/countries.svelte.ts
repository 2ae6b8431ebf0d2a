// The countries the desk completes an address's country from (GET /desk/countries, loaded once):
// a name or alpha-2 typed by the operator becomes the alpha-3 the /v3 interface takes.
import { api } from './api';
import { regionName, t } from './i18n/index.svelte';
import type { CountryName } from './types';

let list = $state<CountryName[]>([]);
let asked = false;

/** Every country (empty until the first answer). */
export function countries(): CountryName[] {
  if (!asked) {
    asked = true;
    api
      .countries()
      .then((d) => (list = d.countries))
      .catch(() => (asked = false));
  }
  return list;
}

/** A name as the desk compares it: lower case, without accents. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** The alpha-3 code of what was typed (`Spain`, `es`, `ESP`, `UK`, `España`, `Deutschland`: the
 * service's one list of names), or the text as typed. */
export function toAlpha3(typed: string): string {
  const t = typed.trim();
  const upper = t.toUpperCase();
  const f = fold(t);
  const c =
    list.find((x) => x.alpha3 === upper) ??
    list.find((x) => x.alpha2 === upper || fold(x.name) === f || (x.also_called ?? []).some((a) => fold(a) === f));
  return c ? c.alpha3 : t;
}

/** Whether a postal code fits a format (`9` a digit, `A` a letter, others literal), ignoring case,
 * spaces and dashes, as the service checks it. */
function fits(mask: string, code: string): boolean {
  const slots = mask.replace(/[^0-9A-Za-z]/g, '');
  const c = code.toUpperCase().replace(/[^0-9A-Z]/g, '');
  if (c.length !== slots.length) return false;
  return [...slots].every((m, i) => (m === '9' ? /[0-9]/.test(c[i]) : m === 'A' ? /[A-Z]/.test(c[i]) : c[i] === m));
}

/** Why `code` cannot be a postal code of `country` (alpha-3), or '' when it can be (or the desk has
 * no rule for the country). The same formats as the service's 4104 check. */
export function postalProblem(country: string | null | undefined, code: string | null | undefined): string {
  const c = list.find((x) => x.alpha3 === (country ?? '').trim().toUpperCase());
  const formats = c?.postal_formats;
  const typed = (code ?? '').trim();
  if (!c || !formats || !formats.length || !typed) return '';
  if (formats.some((f) => fits(f, typed))) return '';
  const shown = formats.slice(0, 4).map((f) => f.replace(/9/g, '0').replace(/A/g, 'X'));
  // Worded as the service's own check, so the desk's words for either are the same (problems.ts).
  const either = shown.reduce((formats, format) => t('countries.formatOr', { formats, format }));
  return t('countries.notPostalCode', { typed, country: regionName(c.alpha2, c.name), formats: either });
}
