import { describe, expect, it } from 'vitest';
import { documentLines, documentsWithoutPrinter, mayChange, shipNotices, type PrintOutcome } from './ship.svelte';
import type { PrintJob, PrintProfile, Printer } from './types';

const zebra = { id: 'prn_1', name: 'Zebra' } as Printer;
const labelProfile = { document_type: 'label', printer_id: 'prn_1', auto_print: true } as PrintProfile;
const job = (document_type: string, status: PrintJob['status']) => ({ id: `job_${document_type}`, document_type, status, printer_id: 'prn_1' }) as PrintJob;

/** A label made with a label printer set and none for packing slips, its jobs as `jobs`. */
const outcome = (jobs: PrintJob[], dismissed = false): PrintOutcome => ({
  labelId: 'lbl_1',
  title: 'Order 1001',
  documents: ['label', 'packing_slip'],
  profiles: [labelProfile],
  lines: documentLines(['label', 'packing_slip'], [labelProfile], [zebra], jobs),
  dismissed,
});

describe("a label's print outcome", () => {
  it('is looked at again while its label is on its way to the printer', () => {
    expect(mayChange(outcome([job('label', 'queued')]))).toBe(true);
    expect(mayChange(outcome([job('label', 'printing')]))).toBe(true);
  });

  it('is looked at again while a failed job shows (the print worker retries it), until dismissed', () => {
    expect(mayChange(outcome([job('label', 'failed')]))).toBe(true);
    expect(mayChange(outcome([job('label', 'failed')], true))).toBe(false);
  });

  it('is not looked at again once printed, even with a document no printer is set for', () => {
    const printed = outcome([job('label', 'printed')]);
    // The packing slip's notice stays for the operator; no look can change it.
    expect(printed.lines.find((l) => l.document === 'packing_slip')).toMatchObject({ failed: true, noPrinter: true });
    expect(mayChange(printed)).toBe(false);
  });
});

describe("the Ship screen's notices", () => {
  /** A label made with no printer set for anything, or one whose label printer refused it. */
  const unprinted = (labelId: string): PrintOutcome => ({ ...outcome([]), labelId, profiles: [], lines: documentLines(['label', 'packing_slip'], [], [zebra], []) });
  const refused = (labelId: string): PrintOutcome => ({ ...outcome([job('label', 'failed')]), labelId });

  it('show the label just made and each earlier failure while there is at most one earlier label without a printer', () => {
    const { single, unprinted: grouped } = shipNotices([unprinted('lbl_2'), unprinted('lbl_1')], 'lbl_2', ['lbl_2']);
    expect(single.map((o) => o.labelId)).toEqual(['lbl_2', 'lbl_1']);
    expect(grouped).toEqual([]);
  });

  it('put the earlier labels that only lacked a printer in one notice, and keep a refused print its own', () => {
    const list = [unprinted('lbl_4'), refused('lbl_3'), unprinted('lbl_2'), unprinted('lbl_1')];
    const { single, unprinted: grouped } = shipNotices(list, 'lbl_4', ['lbl_4']);
    expect(single.map((o) => o.labelId)).toEqual(['lbl_4', 'lbl_3']);
    expect(grouped.map((o) => o.labelId)).toEqual(['lbl_2', 'lbl_1']);
    expect(documentsWithoutPrinter(grouped)).toEqual(['label', 'packing_slip']);
  });

  it("keep the latest parcel's labels their own, its order's other boxes too, while the next is made", () => {
    const list = [unprinted('lbl_box2'), unprinted('lbl_box1'), unprinted('lbl_2'), unprinted('lbl_1')];
    const { single, unprinted: grouped } = shipNotices(list, undefined, ['lbl_box1', 'lbl_box2']);
    expect(single.map((o) => o.labelId)).toEqual(['lbl_box2', 'lbl_box1']);
    expect(grouped.map((o) => o.labelId)).toEqual(['lbl_2', 'lbl_1']);
  });

  it('leave out what was dismissed', () => {
    const list = [unprinted('lbl_3'), { ...unprinted('lbl_2'), dismissed: true }, refused('lbl_1')];
    const { single, unprinted: grouped } = shipNotices(list, undefined, []);
    expect(single.map((o) => o.labelId)).toEqual(['lbl_3', 'lbl_1']);
    expect(grouped).toEqual([]);
  });
});
