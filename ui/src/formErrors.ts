// The service's refusal of a form, split the way the form shows it: each problem beside the field
// it is about (by the request path the field fills), and the others in one line in the form's
// words, never as a request path.
import { ApiError } from './api';

export type FormErrors = { at: Record<string, string>; other: string };

/**
 * `shown(path)`: whether the form has a field for that path (its problem goes beside it);
 * `words`: the label of each other field the service may name (by path, or path prefix).
 */
export function formErrors(e: unknown, shown: (path: string) => boolean, words: Record<string, string>): FormErrors {
  if (!(e instanceof ApiError)) return { at: {}, other: String(e instanceof Error ? e.message : e) };
  const at: Record<string, string> = {};
  const other: string[] = [];
  for (const d of e.details) {
    if (d.path && shown(d.path)) at[d.path] ??= d.info;
    else other.push(`${wordsOf(d.path, words)}${d.info}`);
  }
  const lines = [...new Set(other)];
  return { at, other: lines.length ? lines.join('; ') : Object.keys(at).length ? '' : e.message };
}

/** "Weight: " for `parcel.weight.value` when words has `parcel.weight`; nothing for an unknown path. */
function wordsOf(path: string | null | undefined, words: Record<string, string>): string {
  if (!path) return '';
  const key = Object.keys(words)
    .filter((k) => path === k || path.startsWith(`${k}.`) || path.startsWith(`${k}[`))
    .sort((a, b) => b.length - a.length)[0];
  return key ? `${words[key]}: ` : '';
}

/** One part of a batch order's reason: `shipment.ship_to.postal_code: what is wrong`. The paths are
 * the label request's (`shipment.…`) or the order's; an order's field is the same without `shipment.`. */
const PATH_PART = /^(?:shipment\.)?([\w.[\]]+): (.*)$/s;

/** A batch order's reason (`path: what; path: what`) in words: "Recipient, Postal code: what". */
export function plainReason(info: string, words: Record<string, string>): string {
  return info
    .split('; ')
    .map((part) => {
      const m = PATH_PART.exec(part);
      return m ? `${wordsOf(m[1], words)}${m[2]}` : part;
    })
    .join('; ');
}

/** The words of an address's fields (the labels AddressFields shows), under `prefix`. */
export function addressWords(prefix: string, whole: string): Record<string, string> {
  const labels: Record<string, string> = {
    contact_name: 'Name',
    company_name: 'Company',
    street1: 'Street',
    street2: 'Street 2',
    street3: 'Street 3',
    city: 'City',
    state: 'State / region',
    postal_code: 'Postal code',
    country: 'Country',
    phone: 'Phone',
    email: 'Email',
  };
  return {
    [prefix]: whole,
    ...Object.fromEntries(Object.entries(labels).map(([k, v]) => [`${prefix}.${k}`, `${whole}, ${v}`])),
  };
}

/** The words of an order's fields, as the order editor labels them. */
export const orderWords: Record<string, string> = {
  ...addressWords('ship_to', 'Recipient'),
  items: 'Items',
  weight: 'Weight',
  parcels: 'Weight',
  notes: 'Notes',
  preset: 'Preset',
  order_number: 'Order',
  tags: 'Tags',
};

/** The parts of a batch order's reason that name a field, by the order's path (`ship_to.city`). */
export function reasonAt(info: string): Record<string, string> {
  const at: Record<string, string> = {};
  for (const part of info.split('; ')) {
    const m = PATH_PART.exec(part);
    if (m) at[m[1]] ??= m[2];
  }
  return at;
}
