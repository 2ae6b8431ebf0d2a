// The countries the desk completes an address's country from (GET /desk/countries, loaded once):
// a name or alpha-2 typed by the operator becomes the alpha-3 the /v3 interface takes.
import { api } from './api';
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

/** The alpha-3 code of what was typed (`Spain`, `es`, `ESP`), or the text as typed. */
export function toAlpha3(typed: string): string {
  const t = typed.trim();
  const upper = t.toUpperCase();
  const lower = t.toLowerCase();
  const c = list.find((x) => x.alpha3 === upper) ?? list.find((x) => x.alpha2 === upper || x.name.toLowerCase() === lower);
  return c ? c.alpha3 : t;
}
