// The service's refusal of an editor's form, split the way the form shows it: each problem beside
// the field it is about (by the request path the field fills; the service's text, which the field
// shows in the operator's words through problems.ts), the others in one line in the form's words.
import { ApiError, describe } from './api';

export type FormErrors = { at: Record<string, string>; other: string };

/** `shown(path)`: whether the form has a field for that path (its problem goes beside it). */
export function formErrors(e: unknown, shown: (path: string) => boolean): FormErrors {
  if (!(e instanceof ApiError)) return { at: {}, other: describe(e) };
  const at: Record<string, string> = {};
  for (const d of e.details) if (d.path && shown(d.path)) at[d.path] ??= d.info;
  return { at, other: describe(e, shown) };
}

/** One part of a batch order's reason: `shipment.ship_to.postal_code: what is wrong`. The paths are
 * the label request's (`shipment.…`) or the order's; an order's field is the same without `shipment.`. */
const PATH_PART = /^(?:shipment\.)?([\w.[\]]+): (.*)$/s;

/** The parts of a batch order's reason that name a field, by the order's path (`ship_to.city`). */
export function reasonAt(info: string): Record<string, string> {
  const at: Record<string, string> = {};
  for (const part of info.split('; ')) {
    const m = PATH_PART.exec(part);
    if (m) at[m[1]] ??= m[2];
  }
  return at;
}
