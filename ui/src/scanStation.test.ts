import { describe, expect, it } from 'vitest';
import { ScanStation } from './scanStation.svelte';
import { ShipForm } from './ship.svelte';
import { deferred, settle } from './fakeTimer';
import type { Order, PackScan, PackState, Preset } from './types';
import type { Sound } from './sounds';

const order = (number: string, more: Partial<Order> = {}): Order =>
  ({
    id: `ord_${number}`,
    order_number: number,
    status: 'open',
    ship_to: { contact_name: 'Ada Lovelace', street1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DEU' },
    items: [{ description: 'Mug', quantity: 2 }],
    tracking_numbers: [],
    label_ids: [],
    tags: [],
    resolved_preset: 'DHL Paket',
    weight: { value: 1.5, unit: 'kg' },
    ...more,
  }) as Order;

/** The desk's presets: the one orders name by default. */
const presets = [{ name: 'DHL Paket', shipper_account: { id: 'acc_dhl' }, service_type: 'dhl-germany_packet', paper_size: '4x6' }] as Preset[];

/** A scan station over a fresh form; `orders`: what the desk's order search finds. */
function station(
  orders: Order[] | ((number: string) => Promise<Order[]>),
  settings: { ship_on_scan: boolean; scan_sounds: boolean; verify_items?: boolean } = { ship_on_scan: false, scan_sounds: true },
  badge?: (code: string) => Promise<string | null>,
  ready?: Promise<unknown>,
) {
  const form = new ShipForm();
  const heard: Sound[] = [];
  const shipped: string[] = [];
  const searched: string[] = [];
  const desk = { busy: false, newParcels: 0 };
  const packer = fakePacker(typeof orders === 'function' ? [] : orders);
  const switched: string[] = [];
  const s = new ScanStation({
    form,
    findOrders: (number) => (searched.push(number), typeof orders === 'function' ? orders(number) : Promise.resolve(orders.filter((o) => o.order_number.includes(number)))),
    settings: () => settings,
    ready,
    play: (kind) => heard.push(kind),
    busy: () => desk.busy,
    weightKnown: (o) => !!o.weight,
    ship: async () => {
      shipped.push(form.order?.order_number ?? '?');
    },
    newParcel: () => desk.newParcels++,
    badge,
    packing: packer,
    shipPacked: async () => {
      shipped.push(`part of ${form.order?.order_number ?? '?'}`);
    },
    switchOperator: async () => {
      switched.push('switched');
    },
    presetNamed: (name) => presets.find((p) => p.name === name),
  });
  /** The scanner types `code` and Enter. */
  const scan = async (code: string) => {
    form.reference = code;
    await s.scan();
  };
  return { s, form, heard, shipped, searched, desk, scan, packer, switched };
}

/** The desk's packing lists as the server keeps them (POST /desk/orders/{id}/pack's rules):
 * codes are barcodes, else SKUs; a code the order lacks or one too many is refused and counted. */
function fakePacker(orders: Order[]) {
  const lists = new Map<string, PackState>();
  const scans: string[] = [];
  const list = (id: string): PackState => {
    const o = orders.find((x) => x.id === id)!;
    if (!lists.has(id))
      lists.set(id, {
        order_id: id,
        order_number: o.order_number,
        complete: false,
        refused: 0,
        desk: null,
        boxes: 1,
        box_weights: [null],
        lines: o.items.map((i, n) => ({ line: n + 1, description: i.description, sku: i.sku ?? null, code: i.barcode ?? i.sku ?? null, ordered: i.quantity, packed: 0, by_hand: 0, in_boxes: [0] })),
      });
    return lists.get(id)!;
  };
  const answer = (p: PackState, result: PackScan['result'], line: number | null, message: string): PackScan => {
    p.complete = p.lines.every((l) => l.packed >= l.ordered);
    return structuredClone({ result: result === 'added' && p.complete ? 'complete' : result, line, message, state: p });
  };
  return {
    scans,
    /** What the desk scale shows: a box closed takes it, as the server does. */
    scale: null as { value: number; unit: 'kg' } | null,
    state: async (id: string) => structuredClone(list(id)),
    scan: async (id: string, code: string) => {
      scans.push(code);
      const p = list(id);
      const lines = p.lines.filter((l) => l.code?.toLowerCase() === code.toLowerCase());
      const line = lines.find((l) => l.packed < l.ordered);
      if (line) {
        line.packed++;
        line.in_boxes[p.boxes - 1]++;
        return answer(p, 'added', line.line, `${line.description}: ${line.packed} of ${line.ordered} packed.`);
      }
      p.refused++;
      return answer(p, lines.length ? 'too_many' : 'not_in_order', null, lines.length ? 'one too many' : `“${code}” is not an item of order ${p.order_number}: take it out of the box.`);
    },
    byHand: async (id: string, n: number) => {
      const p = list(id);
      const line = p.lines[n - 1];
      line.packed++;
      line.by_hand++;
      return answer(p, 'added', n, `${line.description}: ${line.packed} of ${line.ordered} packed.`);
    },
    async nextBox(id: string) {
      const p = list(id);
      p.box_weights[p.boxes - 1] = this.scale;
      p.box_weights.push(null);
      p.boxes++;
      p.lines.forEach((l) => l.in_boxes.push(0));
      return answer(p, 'box_started', null, `Box ${p.boxes} of order ${p.order_number} started: the items scanned now go into it.`);
    },
    restart: async (id: string) => {
      lists.delete(id);
      return structuredClone(list(id));
    },
  };
}

describe('the scan station', () => {
  it("shows the account and service of the order's preset in the form", async () => {
    const { form, scan } = station([order('1001')]);
    await scan('1001');
    expect([form.accountId, form.serviceType, form.paperSize]).toEqual(['acc_dhl', 'dhl-germany_packet', '4x6']);
  });

  it('says an unknown number is an error, with its sound, and empties the field', async () => {
    const { s, form, heard, scan } = station([order('1001')]);
    await scan(' 9999 ');
    expect(s.note).toEqual({ kind: 'error', text: 'No open order has the number “9999”.' });
    expect(heard).toEqual(['error']);
    expect(form.reference).toBe('');
    expect(s.last).toBe('9999');
    expect(form.order).toBeNull();
  });

  it('takes a badge no order has for its operator, who takes over; an unknown code is still an error', async () => {
    const badges: Record<string, string> = { 'B-SUE': 'Sue Supervisor', 'B-PIN': '' };
    const { s, form, heard, scan } = station([order('1001')], undefined, async (code) => badges[code] ?? null);
    await scan('B-SUE');
    expect(s.note).toEqual({ kind: 'success', text: 'Sue Supervisor signed in: the desk is theirs now.' });
    expect(form.order).toBeNull();
    // A badge with a PIN: the sign-in screen asks it; the station says nothing.
    s.clear();
    await scan('B-PIN');
    expect(s.note).toBeNull();
    await scan('B-NOBODY');
    expect(s.note?.kind).toBe('error');
    expect(heard).toEqual(['success', 'error']);
  });

  it('loads an open order into the form: recipient, weight, and what Enter does next', async () => {
    const { s, form, heard, shipped, desk, scan } = station([order('1001')]);
    await scan('1001');
    expect(s.note?.kind).toBe('success');
    expect(s.note?.text).toBe('Order 1001: Ada Lovelace, Berlin — 2 items — preset DHL Paket. Enter ships it.');
    expect(heard).toEqual(['success']);
    expect(form.order?.order_number).toBe('1001');
    expect(form.to.city).toBe('Berlin');
    expect(form.weight).toBe('1.5');
    expect(form.reference).toBe('');
    expect(desk.newParcels).toBe(1); // the last label left the screen
    expect(shipped).toEqual([]); // the desk does not ship on scan
  });

  it('writes the order’s weight in the desk’s unit', async () => {
    const { form, scan } = station([order('1001', { weight: { value: 1000, unit: 'g' } })]);
    form.weightUnit = 'lb';
    await scan('1001');
    expect(form.weight).toBe('2.205');
  });

  it('says what to do when no preset fits the order', async () => {
    const { s, scan } = station([order('1001', { resolved_preset: null })]);
    await scan('1001');
    expect(s.note?.text).toMatch(/no preset fits yet: choose the account and service/);
  });

  it('ships the loaded order on Enter, or when the same code is scanned again', async () => {
    const { shipped, searched, scan } = station([order('A-1001')]);
    await scan('A-1001');
    await scan('');
    await scan('a-1001');
    expect(shipped).toEqual(['A-1001', 'A-1001']);
    expect(searched).toEqual(['A-1001']); // no new search for the loaded order
  });

  it('loads another order scanned while one is loaded, without shipping the first', async () => {
    const { form, shipped, scan } = station([order('1001'), order('2002')]);
    await scan('1001');
    await scan('2002');
    expect(form.order?.order_number).toBe('2002');
    expect(shipped).toEqual([]);
  });

  it('warns of a shipped order, with its date and tracking, and loads nothing', async () => {
    const { s, form, heard, scan } = station([order('1001', { status: 'shipped', shipped_at: '2026-11-20T09:00:00Z', tracking_numbers: ['JD0001', 'JD0002'] })]);
    await scan('1001');
    expect(s.note).toEqual({ kind: 'warning', text: 'Order 1001 is already shipped (2026-11-20, tracking JD0001, JD0002).' });
    expect(heard).toEqual(['warning']);
    expect(form.order).toBeNull();
    expect(form.shippedBefore?.order_number).toBe('1001'); // "Ship again…" offers it
  });

  it('loads the open order when a shipped one has the same number', async () => {
    const { s, form, scan } = station([order('1001', { id: 'old', status: 'shipped' }), order('1001', { id: 'new' })]);
    await scan('1001');
    expect(s.note?.kind).toBe('success');
    expect(form.order?.id).toBe('new');
  });

  it('finds only the order with exactly the scanned number', async () => {
    const { s, form, scan } = station([order('10010')]);
    await scan('1001');
    expect(s.note?.kind).toBe('error');
    expect(form.order).toBeNull();
  });

  it('ships at once when the desk ships on scan and the order has a preset and a weight', async () => {
    const { s, heard, shipped, scan } = station([order('1001')], { ship_on_scan: true, scan_sounds: true });
    await scan('1001');
    expect(shipped).toEqual(['1001']);
    expect(s.note?.kind).toBe('success');
    expect(heard).toEqual([]); // the label's result sounds, not the load's
  });

  it('does not ship on scan an order without a weight or without a preset', async () => {
    const { shipped, scan } = station([order('1001', { weight: null }), order('2002', { resolved_preset: null })], { ship_on_scan: true, scan_sounds: true });
    await scan('1001');
    await scan('2002');
    expect(shipped).toEqual([]);
  });

  it('asks to scan again while the last label is being made, and empties the field', async () => {
    const { s, form, desk, searched, shipped, heard, scan } = station([order('1001')]);
    desk.busy = true;
    await scan('1001');
    expect(s.note).toEqual({ kind: 'warning', text: 'Still making the last label: scan 1001 again once it shows.' });
    expect(heard).toEqual(['warning']);
    expect(form.reference).toBe('');
    expect(searched).toEqual([]);
    expect(shipped).toEqual([]);
  });

  it('keeps the newer scan’s order when an older scan’s answer arrives late', async () => {
    const answers = [deferred<Order[]>(), deferred<Order[]>()];
    let n = 0;
    const { s, form, scan } = station(() => answers[n++].promise);
    const first = scan('1001');
    const second = scan('2002');
    answers[1].resolve([order('2002')]);
    await second;
    answers[0].resolve([order('1001')]);
    await first;
    expect(form.order?.order_number).toBe('2002');
    expect(s.note?.text).toMatch(/^Order 2002/);
    expect(s.last).toBe('2002');
  });

  it('says why the search failed, as an error', async () => {
    const { s, scan } = station(() => Promise.reject(new Error('The desk service is restarting')));
    await scan('1001');
    await settle();
    expect(s.note).toEqual({ kind: 'error', text: 'The desk service is restarting' });
  });

  it('stays silent when the desk’s scan sounds are off', async () => {
    const { s, heard, scan } = station([order('1001')], { ship_on_scan: false, scan_sounds: false });
    await scan('9999');
    expect(s.note?.kind).toBe('error');
    expect(heard).toEqual([]);
  });

  it('ignores an empty scan when no order is loaded', async () => {
    const { s, searched, shipped, scan } = station([order('1001')]);
    await scan('   ');
    expect(searched).toEqual([]);
    expect(shipped).toEqual([]);
    expect(s.note).toBeNull();
    expect(s.last).toBe('');
  });
});

describe('the packing list (verify_items)', () => {
  const packed = () =>
    order('1001', {
      items: [
        { description: 'Blue mug', quantity: 2, sku: 'MUG-1', barcode: '5012345678900' },
        { description: 'Gift card', quantity: 1 },
      ] as Order['items'],
    });
  const verify = { ship_on_scan: false, scan_sounds: true, verify_items: true };

  it('opens with the order and counts each item scanned into its line', async () => {
    const { s, scan, heard } = station([packed()], verify);
    await scan('1001');
    expect(s.packing?.lines.map((l) => l.packed)).toEqual([0, 0]);
    expect(s.note?.text).toContain('scan each item into the box (2 × Blue mug, 1 × Gift card)');
    await scan('5012345678900');
    expect(s.packing?.lines[0].packed).toBe(1);
    expect(s.note).toEqual({ kind: 'success', text: 'Blue mug: 1 of 2 packed.' });
    expect(heard).toEqual(['success', 'success']);
  });

  it('refuses an item of another order with an error, a flash and a sound, and keeps the order', async () => {
    const { s, form, scan, heard, shipped } = station([packed()], verify);
    await scan('1001');
    await scan('4006381333931');
    expect(form.order?.order_number).toBe('1001');
    expect(s.note?.kind).toBe('error');
    expect(s.note?.text).toContain('not an item of order 1001');
    expect(s.refusals).toBe(1);
    expect(s.packing?.refused).toBe(1);
    expect(heard.at(-1)).toBe('error');
    expect(shipped).toEqual([]);
  });

  it('will not ship before every line is complete, then ships on Enter', async () => {
    const { s, scan, shipped } = station([packed()], verify);
    await scan('1001');
    await scan('');
    expect(shipped).toEqual([]);
    expect(s.note?.text).toBe('Order 1001 is not packed yet: scan 2 × Blue mug, 1 × Gift card.');
    await scan('5012345678900');
    await scan('5012345678900');
    await s.addByHand(2);
    expect(s.packing?.complete).toBe(true);
    expect(s.note?.text).toBe('Every item of order 1001 is packed. Enter ships it.');
    await scan('');
    expect(shipped).toEqual(['1001']);
  });

  it('ships by itself on the last item when the desk ships on scan', async () => {
    const { s, scan, shipped } = station([packed()], { ...verify, ship_on_scan: true });
    await scan('1001');
    expect(shipped).toEqual([]);
    await scan('5012345678900');
    await scan('5012345678900');
    expect(shipped).toEqual([]);
    await s.addByHand(2);
    expect(shipped).toEqual(['1001']);
  });

  it('takes a scanned order number as the next order, not as a wrong item', async () => {
    const other = order('2002', { items: [{ description: 'Plate', quantity: 1, sku: 'PLATE' }] as Order['items'] });
    const { s, form, scan, packer } = station([packed(), other], verify);
    await scan('1001');
    await scan('2002');
    expect(form.order?.order_number).toBe('2002');
    expect(s.packing?.order_number).toBe('2002');
    expect(packer.scans).toEqual([]);
  });

  it('starts again from nothing', async () => {
    const { s, scan } = station([packed()], verify);
    await scan('1001');
    await scan('5012345678900');
    await s.restartPacking();
    expect(s.packing?.lines.map((l) => l.packed)).toEqual([0, 0]);
    expect(s.note?.kind).toBe('warning');
  });

  it('obeys the command barcodes: ship what is packed, start again, ship, switch operator', async () => {
    const { s, scan, shipped, switched, searched, packer } = station([packed()], verify);
    await scan('PDCMD-SHIP-PACKED');
    expect(s.note?.kind).toBe('warning'); // no order yet
    await scan('1001');
    await scan('PDCMD-SHIP-PACKED');
    expect(s.note?.text).toBe('Nothing of order 1001 is packed yet: scan its items first.');
    await scan('5012345678900');
    await scan('PDCMD-SHIP-PACKED');
    expect(shipped).toEqual(['part of 1001']);
    await scan('pdcmd-restart-packing');
    expect(s.packing?.lines.map((l) => l.packed)).toEqual([0, 0]);
    await scan('PDCMD-SHIP');
    expect(s.note?.text).toBe('Order 1001 is not packed yet: scan 2 × Blue mug, 1 × Gift card.');
    await scan('PDCMD-SWITCH-OPERATOR');
    expect(switched).toEqual(['switched']);
    expect(searched).toEqual(['1001']); // commands are never searched as orders
    expect(packer.scans).toEqual(['5012345678900']); // nor packed as items
  });

  it('puts the items scanned after "Next box" into a new box', async () => {
    const { s, scan, packer } = station([packed()], verify);
    await scan('1001');
    await scan('5012345678900');
    await scan('PDCMD-NEXT-BOX');
    expect(s.note).toEqual({ kind: 'success', text: 'Box 2 of order 1001 started: the items scanned now go into it.' });
    await scan('5012345678900');
    expect(s.packing?.boxes).toBe(2);
    expect(s.packing?.lines[0].in_boxes).toEqual([1, 1]);
    expect(packer.scans).toEqual(['5012345678900', '5012345678900']); // the command is no item
  });

  it('takes a scan fired as the screen opens only once the desk’s settings are there', async () => {
    const desk = { ship_on_scan: false, scan_sounds: true, verify_items: false };
    const loaded = deferred<void>();
    const { s, form, scan } = station([packed()], desk, undefined, loaded.promise);
    const scanned = scan('1001');
    await settle();
    expect(form.reference).toBe(''); // the field is emptied at once for the next scan
    expect(form.order).toBeNull();
    // The desk's settings arrive: this desk checks items.
    desk.verify_items = true;
    loaded.resolve();
    await scanned;
    expect(form.order?.order_number).toBe('1001');
    expect(s.packing?.lines.map((l) => l.packed)).toEqual([0, 0]);
  });

  it("says what a box closed on the scale weighs, in the screen's language", async () => {
    const { s, scan, packer } = station([packed()], verify);
    await scan('1001');
    await scan('5012345678900');
    packer.scale = { value: 1.25, unit: 'kg' };
    await scan('PDCMD-NEXT-BOX');
    expect(s.note).toEqual({ kind: 'success', text: 'Box 1 weighs 1.25 kg. Box 2 of order 1001 started: the items scanned now go into it.' });
    expect(s.packing?.box_weights).toEqual([{ value: 1.25, unit: 'kg' }, null]);
  });
});
