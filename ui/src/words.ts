// What the desk calls things, in one place for every screen that shows them.

/** A print job's state in plain words. */
export const printJobWords: Record<string, string> = {
  queued: 'Waiting for the printer',
  printing: 'Sending',
  printed: 'Printed',
  failed: 'Not printed',
};

/** A ship date (`2026-11-24`) as the desk reads it: Tuesday, Nov 24. */
export function shipDay(date: string): string {
  return new Date(`${date}T12:00:00`).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'short' });
}
