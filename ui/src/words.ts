// What the desk calls things, in one place for every screen that shows them.

import { formatDate, t, wordsOf } from './i18n/index.svelte';

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

/** Why a printer did not print, as the desk's print transport says it, in the screen's language
 * (a text no rule knows stays as it is: a spooler's or a printer's own words). */
const PRINT_ERRORS: [RegExp, string][] = [
  [/^printer (?<printer>\S+) refused the connection/, 'printError.refused'],
  [/^printer (?<printer>\S+) did not answer within (?<seconds>\d+) s/, 'printError.noAnswer'],
  [/^cannot reach printer (?<printer>\S+): (?<why>.*)$/, 'printError.unreachable'],
  [/^printer (?<printer>\S+) has no address/, 'printError.noAddress'],
  [/^cannot find printer (?<printer>[^:]+): (?<why>.*)$/, 'printError.unknownHost'],
  [/^the spooler has no printer (?<printer>.+)$/, 'printError.noQueue'],
  [/^the spooler's printer (?<printer>.+) is disabled$/, 'printError.queueDisabled'],
  [/^IPP printer (?<printer>\S+) did not answer: (?<why>.*)$/, 'printError.ippNoAnswer'],
];

export function printErrorWords(error: string | null | undefined): string {
  const text = (error ?? '').trim();
  for (const [re, key] of PRINT_ERRORS) {
    const m = text.match(re);
    if (m) return t(key, { ...m.groups });
  }
  return text;
}
