// The scan station of the Ship screen: what a scanned (or typed) code followed by Enter does. It
// finds the order by its number (or reference) and loads it into the form, or ships the loaded
// one (Enter again, or the same code again), or ships it at once when the desk ships on scan.
// A code no order has may be an operator's badge: they take over the desk (Switch operator).
// Each result is a success, a warning or an error, with its sound. The scan field is emptied
// whatever happens, so the station never jams on text left from the last scan.
// When the desk checks items (`verify_items`), a loaded order opens its packing list: each scan
// of an item's code counts it into its line, a code the order lacks (or one too many) is refused
// with a flash and a sound, and the order ships once every line is complete.
import type { DeskSettings, Order, PackScan, PackState, Preset } from './types';
import type { ShipForm } from './ship.svelte';
import { orderKg } from './ship.svelte';
import { describe } from './api';
import { formatWeight, t } from './i18n/index.svelte';
import { formatDecimal } from './numbers';
import { convertWeight } from './scale';
import type { Sound } from './sounds';

export type ScanDeps = {
  /** The form a scan loads orders into (its `reference` is the scan field). */
  form: ShipForm;
  /** The orders a search for `number` finds (GET /desk/orders?s=). */
  findOrders: (number: string) => Promise<Order[]>;
  settings: () => Pick<DeskSettings, 'ship_on_scan' | 'scan_sounds'> & { verify_items?: boolean };
  /** Settles once the desk's settings and presets are loaded: a scan waits for it, since a
   * scanner fired as the screen opens would otherwise be taken on the defaults (items not
   * checked, not shipped on scan, no preset shown). */
  ready?: Promise<unknown>;
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
  /** Ships what is packed of the loaded order, as the command barcode asked (no question). */
  shipPacked?: () => Promise<void>;
  /** Signs the operator out for the next one (the command barcode). */
  switchOperator?: () => Promise<void>;
  /** The desk's preset of that name: a loaded order shows the account and service its label
   * will be made with. */
  presetNamed?: (name: string) => Preset | undefined;
  /** The packing list of an order (GET, POST and DELETE /desk/orders/{id}/pack). */
  packing?: {
    state: (orderId: string) => Promise<PackState>;
    scan: (orderId: string, code: string) => Promise<PackScan>;
    byHand: (orderId: string, line: number) => Promise<PackScan>;
    nextBox: (orderId: string) => Promise<PackScan>;
    restart: (orderId: string) => Promise<PackState>;
  };
};

/** The codes of the desk's command sheet (GET /desk/command-sheet.pdf, the server's
 * `ScanCommand`; the UI test scans the codes decoded from the served sheet). */
export const COMMANDS = {
  'PDCMD-SHIP': 'ship',
  'PDCMD-SHIP-PACKED': 'shipPacked',
  'PDCMD-NEXT-BOX': 'nextBox',
  'PDCMD-RESTART-PACKING': 'restartPacking',
  'PDCMD-SWITCH-OPERATOR': 'switchOperator',
} as const;
type Command = (typeof COMMANDS)[keyof typeof COMMANDS];
const commandOf = (code: string): Command | undefined => COMMANDS[code.toUpperCase() as keyof typeof COMMANDS];

/** What is still to pack, in the operator's words ("1 × Blue mug, 2 × Shirt"). */
export function stillToPack(p: PackState): string {
  return p.lines
    .filter((l) => l.packed < l.ordered)
    .map((l) => `${l.ordered - l.packed} × ${l.description}`)
    .join(', ');
}

/** What a scan into the packing list did, in the screen's language (`code`: what was scanned). */
export function packWords(r: PackScan, code: string): string {
  const s = r.state;
  const line = s.lines.find((l) => l.line === r.line);
  switch (r.result) {
    case 'complete':
      return t('packScan.complete', { order: s.order_number });
    case 'box_started': {
      // The box closed took the scale's weight (or the one given): said with the new box.
      const w = s.box_weights[s.boxes - 2];
      return w
        ? t('packScan.boxStartedWeighed', { closed: s.boxes - 1, weight: formatWeight(w.value, w.unit), box: s.boxes, order: s.order_number })
        : t('packScan.boxStarted', { box: s.boxes, order: s.order_number });
    }
    case 'added':
      return line ? t('packScan.added', { item: line.description, packed: line.packed, ordered: line.ordered }) : r.message;
    case 'too_many': {
      const l = s.lines.find((x) => x.code?.toLowerCase() === code.toLowerCase());
      return l ? t('packScan.tooMany', { order: s.order_number, ordered: l.ordered, item: l.description }) : r.message;
    }
    default:
      return t('packScan.notInOrder', { code, order: s.order_number });
  }
}

export class ScanStation {
  /** What the station says of the last scan. */
  note = $state<{ text: string; kind: Sound } | null>(null);
  /** The last code scanned, shown beside the field. */
  last = $state('');
  /** The loaded order's packing list, when the desk checks items. */
  packing = $state<PackState | null>(null);
  /** Counts refused items: the packing list flashes each time it changes. */
  refusals = $state(0);
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
    await this.#deps.ready;
    if (this.#deps.busy()) {
      if (number) this.say('warning', t('scanStation.stillMaking', { number }));
      return;
    }
    const command = commandOf(number);
    if (command) return this.#command(command);
    const same = form.order && (!number || form.order.order_number.toLowerCase() === number.toLowerCase());
    if (same) return this.shipIfPacked();
    if (number && this.packing && form.order) return this.#packOrLoad(number);
    if (number) await this.load(number);
  }

  /** A command barcode of the desk's sheet. */
  async #command(c: Command) {
    const { form } = this.#deps;
    const p = this.packing;
    switch (c) {
      case 'ship':
        return form.order ? this.shipIfPacked() : this.say('warning', t('scanStation.noOrder'));
      case 'shipPacked':
        if (!p || !form.order) return this.say('warning', t('scanStation.nothingPacking'));
        if (!p.lines.some((l) => l.packed > 0)) return this.say('error', t('scanStation.nothingPacked', { order: p.order_number }));
        if (p.complete) return this.shipIfPacked();
        return this.#deps.shipPacked?.();
      case 'nextBox':
        return p ? this.nextBox() : this.say('warning', t('scanStation.nothingPacking'));
      case 'restartPacking':
        return p ? this.restartPacking() : this.say('warning', t('scanStation.nothingPacking'));
      case 'switchOperator':
        return this.#deps.switchOperator?.();
    }
  }

  /** Ships the loaded order, unless items are still to scan into its packing list. */
  async shipIfPacked() {
    const p = this.packing;
    if (p && !p.complete) return this.say('error', t('scanStation.notPackedYet', { order: p.order_number, items: stillToPack(p) }));
    return this.#deps.ship();
  }

  /** A scan while an order is being packed: one of its items, another order, a badge, or an
   * item that does not belong in the box. */
  async #packOrLoad(code: string) {
    const p = this.packing!;
    if (p.lines.some((l) => l.code?.toLowerCase() === code.toLowerCase())) return this.packItem(code);
    const mine = ++this.#scans;
    let isOrder = false;
    try {
      isOrder = (await this.#deps.findOrders(code)).some((o) => o.order_number.toLowerCase() === code.toLowerCase());
    } catch {
      // Not found as an order now: it is taken as an item, which the desk refuses and counts.
    }
    if (mine !== this.#scans) return;
    if (isOrder) return this.load(code);
    try {
      const who = (await this.#deps.badge?.(code)) ?? null;
      if (who !== null) return who ? this.say('success', t('scanStation.signedIn', { name: who })) : undefined;
    } catch (e) {
      return this.say('error', describe(e));
    }
    if (mine !== this.#scans) return;
    return this.packItem(code);
  }

  /** One item's code into the loaded order's packing list. */
  packItem(code: string) {
    return this.#pack((p, id) => p.scan(id, code));
  }

  /** Closes the box being packed: the items scanned next go into a new box (a parcel of its own). */
  nextBox() {
    return this.#pack((p, id) => p.nextBox(id));
  }

  /** +1 by hand on a line whose item has no code. */
  addByHand(line: number) {
    return this.#pack((p, id) => p.byHand(id, line));
  }

  /** A change of the loaded order's packing list, and what the desk says of it. */
  async #pack(change: (p: NonNullable<ScanDeps['packing']>, orderId: string) => Promise<PackScan>) {
    const order = this.#deps.form.order;
    if (!order || !this.#deps.packing) return;
    const mine = ++this.#scans;
    try {
      this.#packed(await change(this.#deps.packing, order.id), mine);
    } catch (e) {
      if (mine === this.#scans) this.say('error', describe(e));
    }
  }

  /** Starts the loaded order's packing again (the box emptied). */
  async restartPacking() {
    const order = this.#deps.form.order;
    if (!order || !this.#deps.packing) return;
    const mine = ++this.#scans;
    try {
      const state = await this.#deps.packing.restart(order.id);
      if (mine !== this.#scans) return;
      this.packing = state;
      this.say('warning', t('scanStation.packingRestarted', { order: state.order_number }));
    } catch (e) {
      if (mine === this.#scans) this.say('error', describe(e));
    }
  }

  #packed(r: PackScan, mine: number) {
    if (mine !== this.#scans) return;
    this.packing = r.state;
    const words = packWords(r, this.last);
    if (r.result === 'not_in_order' || r.result === 'too_many') {
      this.refusals++;
      return this.say('error', words);
    }
    if (r.result !== 'complete') return this.say('success', words);
    const order = this.#deps.form.order;
    const shipNow = !!(this.#deps.settings().ship_on_scan && order?.resolved_preset && this.#deps.weightKnown(order));
    this.say('success', shipNow ? words : t('scanStation.packedEnterShips', { message: words }), !shipNow);
    if (shipNow) return this.#deps.ship();
  }

  /** Finds the order `number` and loads it (an open one before a shipped one of the same number). */
  async load(number: string) {
    const { form } = this.#deps;
    const mine = ++this.#scans;
    this.#deps.newParcel();
    form.order = null;
    this.packing = null;
    form.shippedBefore = null;
    this.note = null;
    let found: Order | undefined;
    try {
      const same = (await this.#deps.findOrders(number)).filter((o) => o.order_number.toLowerCase() === number.toLowerCase());
      found = same.find((o) => o.status === 'open' || o.status === 'partially_shipped') ?? same.find((o) => o.status === 'shipped');
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
      if (who !== null) return who ? this.say('success', t('scanStation.signedIn', { name: who })) : undefined;
      return this.say('error', t('scanStation.noSuchOrder', { number }));
    }
    if (found.status === 'shipped') {
      form.shippedBefore = found;
      return this.say('warning', t('scanStation.alreadyShipped', { order: found.order_number, day: found.shipped_at?.slice(0, 10) ?? '', tracking: found.tracking_numbers.join(', ') }));
    }
    const kg = orderKg(found);
    form.useOrder(found, kg ? formatDecimal(convertWeight({ value: kg, unit: 'kg' }, form.weightUnit)) : '');
    const items = found.items.reduce((n, i) => n + i.quantity, 0);
    const preset = found.resolved_preset;
    // The form shows the account and service the order's label will be made with.
    const chosen = preset ? this.#deps.presetNamed?.(preset) : undefined;
    if (chosen) form.usePreset(chosen);
    if (this.#deps.settings().verify_items && found.items.length && this.#deps.packing) {
      try {
        const state = await this.#deps.packing.state(found.id);
        if (mine !== this.#scans) return;
        this.packing = state;
      } catch (e) {
        if (mine === this.#scans) this.say('error', describe(e));
        return;
      }
    }
    const toPack = this.packing && !this.packing.complete;
    const shipNow = !!(this.#deps.settings().ship_on_scan && preset && this.#deps.weightKnown(found) && !toPack);
    const next = toPack
      ? t('scanStation.loadedToPack', { items: stillToPack(this.packing!) })
      : preset
        ? t('scanStation.loadedWithPreset', { preset })
        : t('scanStation.loadedNoPreset');
    this.say(
      'success',
      t('scanStation.loaded', { order: found.order_number, name: found.ship_to.contact_name ?? '', city: found.ship_to.city ?? '', count: items, next }),
      !shipNow, // shipping now: the label's result sounds
    );
    if (shipNow) await this.#deps.ship();
  }

  /** The form cleared by the operator: the station says nothing of the last scan any more. */
  clear() {
    this.note = null;
    this.packing = null;
  }
}
