// The time zones an account may have: the IANA list the browser knows, UTC, and the desk's own.

/** This computer's time zone: where a new account starts. */
export const deskTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export const timeZones: string[] = [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', deskTimeZone])].sort();

/** Why a typed time zone cannot be saved (`kept`: the one the account has now, always fine), or ''. */
export function timeZoneProblem(zone: string, kept?: string): string {
  const z = zone.trim();
  if (!z) return 'Choose the time zone of the warehouse, for example Europe/London.';
  if (z === kept || timeZones.includes(z)) return '';
  return 'Not a time zone: type a city and choose from the list.';
}
