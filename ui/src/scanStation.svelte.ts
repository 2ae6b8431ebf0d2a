// The scan station of the Ship screen: what a scanned (or typed) code followed by Enter does. It
// finds the order by its number (or reference) and loads it into the form, or ships the loaded
// one (Enter again, or the same code again), or ships it at once when the desk ships on scan.
// A code no order has may be an operator's badge: they take over the desk (Switch operator).
// Each result is a success, a warning or an error, with its sound. The scan field is emptied
// whatever happens, so the station never jams on text left from the last scan.
import type { DeskSettings, Order } from './types';
import type { ShipForm } from './ship.svelte';
import { orderKg } from './ship.svelte';
import { describe } from './api';
import { formatDecimal } from './numbers';
import { convertWeight } from './scale';
import type { Sound } from './sounds';

export type ScanDeps = {
  /** The form a scan loads orders into (its `reference` is the scan field). */
  form: ShipForm;
  /** The orders a search for `number` finds (GET /desk/orders?s=). */
  findOrders: (number: string) => Promise<Order[]>;
  settings: () => Pick<DeskSettings, 'ship_on_scan' | 'scan_sounds'>;
  play: (kind: Sound) => void;
  /** Whether a label is being made. */
  busy: () => boolean;
  /** Whether an order's weight is known (its own, or its preset's assumed one). */
  weightKnown: (o: Order) => boolean;
  /** Ships the loaded order, as a scan asked (the cursor stays in the scan field). */
  ship: () => Promise<void>;
  /** A new parcel is scanned: the last label and its errors leave the screen. */
  newParcel: () => void;
  /** A code no order has may be an operator's badge: who took over ('' while their PIN is
   * asked), or null when it is none. */
  badge?: (code: string) => Promise<string | null>;
};

export class ScanStation {
  /** What the station says of the last scan. */
  note = $state<{ text: string; kind: Sound } | null>(null);
  /** The last code scanned, shown beside the field. */
  last = $state('');
  #scans = 0; // the latest scan's number: an older scan's answer never replaces it
  #deps: ScanDeps;

  constructor(deps: ScanDeps) {
    this.#deps = deps;
  }

  /** A result of the station, with its sound unless `sound` is false or the desk's sounds are off. */
  say(kind: Sound, text: string, sound = true) {
    this.note = { text, kind };
    if (sound && this.#deps.settings().scan_sounds !== false) this.#deps.play(kind);
  }

  /** Enter in the scan field (what a barcode scanner sends). */
  async scan() {
    const { form } = this.#deps;
    const number = form.reference.trim();
    // Whatever the scan finds, the field is emptied for the next one: a scan into text left over
    // from the last one is a number no order has, and the station jams.
    form.reference = '';
    if (number) this.last = number;
    if (this.#deps.busy()) {
      if (number) this.say('warning', `Still making the last label: scan ${number} again once it shows.`);
      return;
    }
    if (form.order && (!number || form.order.order_number.toLowerCase() === number.toLowerCase())) return this.#deps.ship();
    if (number) await this.load(number);
  }

  /** Finds the order `number` and loads it (an open one before a shipped one of the same number). */
  async load(number: string) {
    const { form } = this.#deps;
    const mine = ++this.#scans;
    this.#deps.newParcel();
    form.order = null;
    form.shippedBefore = null;
    this.note = null;
    let found: Order | undefined;
    try {
      const same = (await this.#deps.findOrders(number)).filter((o) => o.order_number.toLowerCase() === number.toLowerCase());
      found = same.find((o) => o.status === 'open') ?? same.find((o) => o.status === 'shipped');
    } catch (e) {
      if (mine === this.#scans) this.say('error', describe(e));
      return;
    }
    if (mine !== this.#scans) return;
    if (!found) {
      let who: string | null = null;
      try {
        who = (await this.#deps.badge?.(number)) ?? null;
      } catch (e) {
        // A badge that cannot sign in now (locked after wrong PINs): said as it is.
        if (mine === this.#scans) this.say('error', describe(e));
        return;
      }
      if (mine !== this.#scans) return;
      if (who !== null) return who ? this.say('success', `${who} signed in: the desk is theirs now.`) : undefined;
      return this.say('error', `No open order has the number “${number}”.`);
    }
    if (found.status === 'shipped') {
      form.shippedBefore = found;
      return this.say('warning', `Order ${found.order_number} is already shipped (${found.shipped_at?.slice(0, 10)}, tracking ${found.tracking_numbers.join(', ')}).`);
    }
    const kg = orderKg(found);
    form.useOrder(found, kg ? formatDecimal(convertWeight({ value: kg, unit: 'kg' }, form.weightUnit)) : '');
    const items = found.items.reduce((n, i) => n + i.quantity, 0);
    const preset = found.resolved_preset;
    const shipNow = !!(this.#deps.settings().ship_on_scan && preset && this.#deps.weightKnown(found));
    this.say(
      'success',
      `Order ${found.order_number}: ${found.ship_to.contact_name ?? ''}, ${found.ship_to.city ?? ''} — ${items} item${items === 1 ? '' : 's'}` +
        (preset ? ` — preset ${preset}. Enter ships it.` : ' — no preset fits yet: choose the account and service, press “Save as preset…” and make it the default for orders, then Enter.'),
      !shipNow, // shipping now: the label's result sounds
    );
    if (shipNow) await this.#deps.ship();
  }

  /** The form cleared by the operator: the station says nothing of the last scan any more. */
  clear() {
    this.note = null;
  }
}
