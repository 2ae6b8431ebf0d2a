import { describe, expect, it } from 'vitest';
import { documentLines, mayChange, type PrintOutcome } from './ship.svelte';
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
