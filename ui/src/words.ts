// What the desk calls things, in one place for every screen that shows them.

import { formatDate, wordsOf } from './i18n/index.svelte';

/** A print job's state in plain words. */
export const printJobWords: Record<string, string> = wordsOf({
  queued: 'printJob.queued',
  printing: 'printJob.printing',
  printed: 'printJob.printed',
  failed: 'printJob.failed',
});

/** A ship date (`2026-11-24`) as the desk reads it: Tuesday, Nov 24. */
export function shipDay(date: string): string {
  return formatDate(date, { weekday: 'long', day: 'numeric', month: 'short' });
}
