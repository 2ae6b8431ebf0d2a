// The time zones an account may have: the IANA list the browser knows, UTC, and the desk's own.

import { t } from './i18n/index.svelte';

/** This computer's time zone: where a new account starts. */
export const deskTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const timeZones: string[] = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', deskTimeZone])].sort();

/** Why a typed time zone cannot be saved (`kept`: the one the account has now, always fine), or ''. */
export function timeZoneProblem(zone: string, kept?: string): string {
  const z = zone.trim();
  if (!z) return t('timezones.noZone');
  if (z === kept || timeZones.includes(z)) return '';
  return t('timezones.unknownZone');
}
