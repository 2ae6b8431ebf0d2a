// The service's failures in the operator's words. The /v3 envelope keeps the contract's text (a
// code, its fixed message, details with a request path and developer-facing info); the desk shows
// each problem once: the field as the form calls it, what is wrong, what to do. Plain TypeScript
// with no imports at run time, so node runs it as the page does (tests/desk-words.test.mjs).

import type { Detail } from './types';

/** A failure as the envelope's `meta` carries it (an `ApiError` is one). */
export interface Failure {
  code: number;
  message: string;
  details: Detail[];
}

/** What the forms call each segment of a request path; '' for segments that are no field of their
 * own (`shipment`, the `value` of a weight, the `id` of an account). Others read with spaces. */
const SEGMENT: Record<string, string> = {
  shipment: '',
  ship_to: 'recipient',
  ship_from: 'sender',
  address: '',
  customs: 'customs',
  importer_address: 'importer',
  contact_name: 'name',
  company_name: 'company',
  street1: 'street',
  street2: 'street 2',
  street3: 'street 3',
  state: 'state / region',
  postal_code: 'postcode',
  tax_id: 'tax ID',
  parcel: '',
  dimension: '',
  value: '',
  amount: '',
  id: '',
  settings: '',
  when: '',
  origin_country: 'origin country',
  hs_code: 'HS code',
  sku: 'SKU',
  item_id: 'item ID',
  price: 'price',
  cod_value: 'COD amount',
  insured_value: 'insured value',
  start_time: 'pickup from',
  end_time: 'pickup until',
  // An option's type: the rewritten problem names the option itself ("TIPSA does not offer cash on delivery").
  type: '',
  service_type: 'service',
  service_option: 'service option',
  shipper_account: 'account',
  shipper_account_ids: 'accounts',
  order_number: 'order number',
  order_id: 'order ID',
  ship_date: 'ship date',
  paper_size: 'paper size',
  file_type: 'file type',
  return_shipment: 'return shipment',
  delivery_instructions: 'delivery instructions',
  number_of_copies: 'copies',
  paid_by: 'paid by',
  account_number: 'account number',
  terms_of_trade: 'terms of trade',
  cutoff_time: 'cut-off time',
  timezone: 'time zone',
  printer_id: 'printer',
  join_code: 'join code',
  update_url: 'update server',
  preset: 'preset',
  name: 'name',
  description: 'description',
  url: 'URL',
  dpi: 'DPI',
  weight_min: 'weight from',
  weight_max: 'weight to',
  ship_to_country: 'ship-to country',
  items_min: 'items from',
  items_max: 'items to',
  is_default: 'default',
  auto_print: 'print automatically',
  postal_code_override: 'postcode confirmed as typed',
  credentials: '',
  tracking_ranges: 'tracking range',
  range_warning: 'warning threshold',
};

/** Paths of one segment that a form names its own way. */
const TOP: Record<string, string> = {
  again: '',
  address: 'connection',
  description: 'name on the desk',
  parcels: 'weight',
};

/** Numbered things: `items[1]` is Item 2. `first`: what the first one is called where the form
 * gives it no number (the Ship form's own parcel, the scanned reference). */
const NUMBERED: Record<string, { word: string; first?: string }> = {
  parcels: { word: 'parcel', first: '' },
  references: { word: 'reference', first: 'reference' },
  items: { word: 'item' },
  rules: { word: 'rule' },
  order_ids: { word: 'order' },
  // An option is named by its own checkbox; its number says nothing to the operator.
  service_options: { word: '', first: '' },
};

const segmentWord = (s: string) => (s in SEGMENT ? SEGMENT[s] : s.replace(/_/g, ' '));
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A request path as the form calls the field: `shipment.ship_to.postal_code` is "Recipient
 * postcode", `shipment.parcels[1].weight.value` "Parcel 2 weight", `items[1].origin_country`
 * "Item 2 origin country"; '' for a path that names no field. `named`: the labels a form gives
 * fields of its own making (a carrier's credential fields), by path. */
export function fieldLabel(path: string, named: Record<string, string> = {}): string {
  if (path in named) return named[path];
  // A pool's ranges, as the Accounts form shows them: "Tracking range 2 from" (the pool named
  // unless it is the only, default one).
  const range = path.match(/^settings\.tracking_ranges\.(\w+)(?:\[(\d+)\])?(?:\.(start|end))?$/);
  if (range) {
    const [, pool, i, end] = range;
    const words = ['tracking range', pool === 'default' ? '' : `(${pool.replace(/_/g, ' ')})`, i === undefined ? '' : String(Number(i) + 1), end ? (end === 'start' ? 'from' : 'to') : ''];
    return capital(words.filter((w) => w).join(' '));
  }
  if (path in TOP) return capital(TOP[path]);
  const words: string[] = [];
  for (const seg of path.split('.')) {
    const m = seg.match(/^(\w+)\[(\d+)\]$/);
    if (!m) {
      words.push(segmentWord(seg));
      continue;
    }
    const n = Number(m[2]) + 1;
    const what = NUMBERED[m[1]] ?? { word: segmentWord(m[1]) };
    words.push(n === 1 && what.first !== undefined ? what.first : what.word && `${what.word} ${n}`);
  }
  return capital(words.filter((w) => w.trim()).join(' ').trim());
}

// Countries by their alpha-3 code (the service's texts name them so); filled from the desk's
// country list once it has loaded, until then the code stands for the name.
let countryNames = new Map<string, string>();

/** The desk's country list, for naming countries in messages. */
export function nameCountries(list: { alpha3: string; name: string }[]) {
  if (list.length !== countryNames.size) countryNames = new Map(list.map((c) => [c.alpha3, c.name]));
}

const country = (code: string) => countryNames.get(code.trim().toUpperCase()) ?? code;
const countries = (codes: string) => codes.split(/,\s*/).map(country).join(', ').replace(/, ([^,]+)$/, ' or $1');
const quoted = (s: string) => `“${s}”`;

/** The service options as the Ship form names them. */
const OPTION: Record<string, string> = {
  cod: 'cash on delivery',
  insurance: 'insurance',
  pickup: 'pickup',
  saturday_delivery: 'Saturday delivery',
};
const option = (o: string) => OPTION[o] ?? o.replace(/_/g, ' ');

/** The postal code advice, the same whoever found the problem (the form as it is typed, address
 * validation, the label request). */
const postcodeWords = (place: string, formats: string) =>
  `does not look like a postcode of ${country(place)} (${formats}): check it, or confirm it as typed`;

/** The service's developer-facing texts, each with the operator's words for it. The first match wins. */
const REWRITES: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^is required$/, () => 'is empty: fill it in'],
  // A pool's ranges: used up (4730) or given out of order.
  [/^The tracking-number range of (.+) \(pool (\w+)\) is used up: (\d+) left, (\d+) needed/, ([, who, pool, left, needed]) =>
    `has run out of tracking numbers: ${who} (${pool}) has ${left} left and this label needs ${needed}. Add the carrier's next range on the Accounts screen (the account → Tracking ranges)`],
  [/^The tracking-number range of (.+) \(pool (\w+)\) has no tracking-number range set/, ([, who, pool]) =>
    `has no tracking numbers: ${who} (${pool}) has no range yet. Add the carrier's range on the Accounts screen (the account → Tracking ranges)`],
  [/^ranges are used in order: this one must start above the previous range's end \((\d+)\)$/, ([, end]) =>
    `must be above the previous range's end (${end}): ranges are used in order`],
  [/^at least one range/, () => 'is empty: give at least one range (from and to)'],
  [/^is required for a (\w+) option$/, (m) => `is empty: ${option(m[1])} needs it`],
  [/^is required when paid_by is third_party/, () => 'is empty: a third party paying needs it'],
  [/^.+ \(\w+\) is required by (.+)$/, (m) => `is empty: ${m[1]} needs it`],
  [/^missing field `.*`$/, () => 'is empty: fill it in'],
  [/^unknown variant `(.*)`, expected/, ([, v]) => `${quoted(v)} is not one the desk offers: choose one from the list`],
  [/^invalid type: .*, expected (.+?)(?: at line .*)?$/, ([, t]) =>
    /^(f64|f32|[iu]\d+|a number|an integer)/.test(t) ? 'must be a number' : t === 'a string' ? 'must be text' : t === 'a boolean' ? 'must be yes or no' : 'is not in the right form'],
  [/^is required for ([A-Z]{3})$/, (m) => `is empty: addresses in ${country(m[1])} need one`],
  [/^length must be (\d+)\.\.(\d+) characters, is (\d+)$/, ([, min, max, n]) =>
    Number(n) === 0 ? 'is empty: fill it in'
    : Number(n) > Number(max) ? `is too long: at most ${max} characters (${n} typed)`
    : `is too short: at least ${min} characters (${n} typed)`],
  [/^(?:length must be )?(\d+)(?:\.\.| to )(\d+) characters$/, ([, min, max]) => `must be ${min} to ${max} characters long`],
  [/^(\d+) characters; (.+) allows at most (\d+)$/, ([, n, who, max]) => `is too long for ${who}: at most ${max} characters (${n} typed)`],
  [/^longer than (\d+) characters; split it over/, ([, max]) => `is longer than ${max} characters: carry the rest on Street 2`],
  // The label request, address validation and the form's own check of a postal code.
  [/^[`“].*[`”] is not a postal code of (.+?) \(format (.+)\)/, ([, place, formats]) => postcodeWords(place, formats)],
  [/^not a postal code of (.+?) \(format (.+)\)$/, ([, place, formats]) => postcodeWords(place, formats)],
  [/^`(.*)` is not an ISO 3166 alpha-3 country code/, ([, c]) => `${quoted(c)} is not a country the desk knows: choose one from the list`],
  [/^`(.*)` is not an ISO 4217 currency code$/, ([, c]) => `${quoted(c)} is not a currency: use a code such as GBP, EUR or USD`],
  [/^is not an email address$/, () => 'is not an email address: check it'],
  [/^must be 0\.\.([\d.]+) (\w+)$/, ([, max, unit]) => `must be between 0 and ${max} ${unit}`],
  [/^must be a number from 0 to /, () => 'must be a number of 0 or more'],
  [/^must be a date YYYY-MM-DD$/, () => 'is not a date: give one such as 2026-12-31'],
  [/^(\S+) is in the past everywhere on earth/, ([, d]) => `is in the past (${d}): choose today or a later day`],
  [/^is more than 30 days ahead$/, () => 'is more than 30 days ahead: choose an earlier day'],
  [/^must be a time of day HH:MM:SS$/, () => 'is not a time of day: give one such as 09:30'],
  [/^a time of day HH:MM \(24 hours\)/, () => 'is not a time of day: give one such as 17:30'],
  [/^must be after start_time$/, () => 'must be later than the pickup start'],
  [/^`(.*)` is a service of (.+), but the shipper account is (.+) \(.*\)$/, ([, s, other, mine]) =>
    `${quoted(s)} is a ${other} service and the account is ${mine}: choose a ${mine} service or another account`],
  [/^unknown service_type `(.*)`; (.+) offers:/, ([, s, who]) => `${quoted(s)} is not a service of ${who}: choose one from the list`],
  // The route checks, as the service words them now (`… stays within one country and this parcel
  // goes GBR to ESP`, `… ships to IND only, not ESP`) and as it did (`… is a domestic service`).
  [/^(.+?) (?:is a (domestic|international) service|(stays within one country|goes abroad only) and this parcel goes)(?:;? this shipment goes)? ?(?:(\w+) to (\w+))?$/, ([, s, scope, runs, from, to]) =>
    `cannot carry this parcel (${s} is for parcels ${scope === 'domestic' || runs === 'stays within one country' ? 'within one country' : 'abroad'}${
      !from ? '' : from === to ? `, this one stays in ${country(from)}` : `, this one goes from ${country(from)} to ${country(to)}`
    }): choose another service`],
  [/^(.+) ships (from|to) (.+) only(?:, not \w+)?$/, ([, who, dir, list]) =>
    `is not served by ${who} (it ships ${dir} ${countries(list)} only): choose another account`],
  [/^order (\S+) was shipped(.*?) on (\S+) with label \S+ \(tracking (.*)\); send "again"/, ([, n, at, when, t]) =>
    `order ${n} was shipped${at} on ${when.slice(0, 10)} (tracking ${t}): make another label only if the parcel needs one`],
  [/^(.+) does not ship (from|to) (\w+)$/, ([, who, dir, c]) =>
    `cannot carry this parcel (${who} does not ship ${dir} ${country(c)}): choose another account`],
  [/^`(.*)` is not available for (.+); allowed: (.+)$/, ([, v, who, list]) => `${quoted(v)} is not available for ${who}: choose ${list.replace(/, ([^,]+)$/, ' or $1')}`],
  [/^(.+) does not accept file_type/, ([, who]) => `${who} makes PDF labels only: choose PDF`],
  [/^(.+) does not accept (\w+) \(accepted optional fields/, ([, who]) => `is not taken by ${who}: leave it empty`],
  [/^(.+) does not offer `(\w+)` options/, ([, who, o]) => `${who} does not offer ${option(o)}: untick it`],
  [/^unknown service option `(.*)`/, ([, o]) => `${quoted(o)} is not a service option the desk knows`],
  [/^`(.*)` is given twice$/, ([, o]) => `${option(o)} is chosen twice: choose it once`],
  [/^`(.*)` is on another label of this shipper account$/, ([, o]) => `${quoted(o)} is on another label of this account: use another order number`],
  [/^`(.*)` is not an IANA timezone/, ([, z]) => `${quoted(z)} is not a time zone: give one such as Europe/London`],
  [/^must be a UUID$/, () => 'is not one the desk knows: choose it again'],
  [/^must be a string$/, () => 'must be text'],
  [/^(?:must be (?:a whole number )?)?(\d+)\.\.(\d+)$/, ([, a, b]) => `must be ${a} to ${b}`],
  [/^host:port of the printer/, () => 'must be the printer’s network address and port, such as 192.0.2.10:9100'],
  [/^`(.*)` is not a port/, ([, p]) => `${quoted(p)} is not a port: give the printer’s network address and port, such as 192.0.2.10:9100`],
  [/^a spooler queue name: (.*)$/, ([, how]) => `must be the name of a printer of this computer (${how.replace(/ \(see the printers of this computer\)$/, '')})`],
  [/^an ipp:\/\/ URI/, () => 'must be the printer’s ipp:// address, such as ipp://printer.local:631/ipp/print'],
  [/^(\d+) characters; at most (\d+)$/, ([, n, max]) => `is too long: at most ${max} characters (${n} typed)`],
  [/^below (\w+) (.+)$/, ([, field, v]) => `must not be below the ${segmentWord(field)} (${v})`],
  [/^no printer profile for (\w+):/, ([, doc]) => `is not set for ${doc.replace(/_/g, ' ')}s: choose a printer on the Printers screen`],
  [/^one of: (.+)$/, ([, list]) => `must be one of ${list}`],
  [/^(\d+(?:, \d+)* or \d+)$/, ([, list]) => `must be ${list}`],
  [/^(?:pdf or zpl|a weight of|a time of day|a PostgreSQL address)/, (m) => `must be ${plainWords(m.input ?? '')}`],
];

/** Words that start a predicate: the field's label reads straight into them ("Recipient name is empty"). */
const PREDICATE = /^(is|are|must|does|do|has|cannot|can)\b/;

/** What is wrong at one detail, in the operator's words (the field not named): the service's
 * developer-facing texts rewritten, anything already plain kept as it is. */
export function problemWords(detail: Pick<Detail, 'info'>): string {
  const info = detail.info.trim();
  for (const [re, words] of REWRITES) {
    const m = info.match(re);
    if (m) return words(m);
  }
  return plainWords(info);
}

/** A text that no rule knows, with its code-isms softened: `x` quoted, field paths and
 * snake_case names (outside quotes) as the form calls them. */
function plainWords(text: string): string {
  return text
    .replace(/`([^`]*)`/g, '“$1”')
    .replace(/\be\.g\./g, 'such as')
    .split(/(“[^”]*”)/)
    .map((part, i) => (i % 2 ? part : part.replace(PATH_TOKEN, (p) => (/[_.[]/.test(p) && isPath(p) ? lowerFirst(fieldLabel(p)) : p))))
    .join('');
}

/** A word of a request path (`ship_to`, `parcels[1]`, `postal_code_override`) that reads as a field. */
const PATH_TOKEN = /\b[a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*(?:\[\d+\])?)*/g;
const knownSegment = (seg: string) => {
  const name = seg.replace(/\[\d+\]$/, '');
  return name in SEGMENT || name in TOP || name in NUMBERED;
};
/** Whether a token inside a text is a request path: snake_case or indexed, or known words with dots. */
const isPath = (p: string) => /[_[]/.test(p) || p.split('.').every(knownSegment);
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);

/** One detail as one sentence: the field's label, then what is wrong and what to do. `named`: as
 * for `fieldLabel`. */
export function detailWords(detail: Detail, named: Record<string, string> = {}): string {
  const label = fieldLabel(detail.path, named);
  const problem = problemWords(detail);
  if (!label) return capital(problem);
  return PREDICATE.test(problem) ? `${label} ${problem}` : `${label}: ${problem}`;
}

/** The operator's words for each code; the contract's message is kept beside them so a text that
 * carries only the message (a batch's failure) is recognised too. */
const CODES: Record<number, [contract: string, words: string]> = {
  401: ['Invalid API key.', 'This desk’s key was refused: restart Packdesk'],
  404: ['The requested resource does not exist.', 'The desk asked for something the service does not have: update Packdesk'],
  405: ['The method is not allowed on this resource.', 'The desk asked for something the service does not do: update Packdesk'],
  413: ['The request body is too large.', 'That is too much at once: send it in smaller parts'],
  4100: ['Internal Error.', 'Something went wrong inside Packdesk: try again, and tell support if it happens again'],
  4101: ['Internal Error, please try again.', 'Packdesk was busy: try again'],
  4104: ['The request was invalid or cannot be otherwise served.', 'Some fields need attention'],
  4109: ['Invalid JSON.', 'The desk sent something the service could not read: try again, and update Packdesk if it happens again'],
  4140: ['Shipper account not found.', 'That shipper account is not on this desk any more: choose another account'],
  4153: ['Item does not exist.', 'That is not on this desk any more: reload the screen'],
  4155: [
    'Access to shipper_account locked during manifest/cancel-label operation.',
    'The account is busy closing out or cancelling a label: try again in a moment',
  ],
  4171: ['Operation is not allowed on this courier.', 'The carrier does not allow this'],
  4713: ['All or partial failed in rate request.', 'Some carriers gave no prices: the others are shown'],
  4716: ['The address length is too long.', 'An address line is too long for the carrier: shorten it'],
  4722: ['The tracking number is already canceled, it can not be canceled again.', 'This label is voided already'],
  4724: ['The tracking number is manifested, so can not be canceled.', 'This label is on a closed-out manifest, so it cannot be voided'],
  4725: ['There is no shipments to manifest.', 'There are no labels to close out'],
  4730: [
    'No more pre-assigned tracking numbers available in this shipper account. Please input the new tracking numbers in your shipper account setting page.',
    'The account has no tracking numbers left: add new ones in its settings on the Accounts screen',
  ],
  4801: [
    'Duplicate order_number, please specify a different order_number and try again.',
    'That order number is on another label already: use another order number',
  ],
  4802: ['The service_type is not available for this shipment.', 'This service cannot carry this parcel: choose another service'],
  4803: [
    'The service_type and service_option are not available for this shipment.',
    'This service cannot carry this parcel with these options: choose another service, or untick an option',
  ],
};

/** A code's message in the operator's words (the envelope's own message for a code the desk does not know). */
export function codeWords(code: number, message = ''): string {
  return CODES[code]?.[1] ?? (message ? plainWords(message) : 'The service refused this: try again');
}

/** A failure in one line: each field's problem once, the field's words first; the code's words
 * only when no detail says more. No paths, no codes. `shown`: paths whose problem the screen shows
 * beside the field already, left out here ('' when every problem is beside its field). */
export function failureWords(f: Failure, shown: (path: string) => boolean = () => false): string {
  // An internal failure's detail is for the log, not the desk.
  const all = f.code === 4100 || f.code === 4101 ? [] : f.details.filter((d) => d.info.trim());
  const details = all.filter((d) => !d.path || !shown(d.path));
  if (all.length && !details.length) return '';
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const d of details) {
    const line = detailWords(d);
    if (seen.has(d.path || line) || lines.includes(line)) continue;
    seen.add(d.path || line);
    lines.push(line);
  }
  return lines.length ? lines.join('; ') : codeWords(f.code, f.message);
}

/** What went wrong in words, for anything a call can throw: the service's failures, the network's,
 * the desk's own. `shown`: as for `failureWords`. */
export function errorWords(e: unknown, shown?: (path: string) => boolean): string {
  if (e && typeof e === 'object' && 'code' in e && 'details' in e && Array.isArray(e.details)) return failureWords(e as Failure, shown);
  // fetch's own failure: the server is not there.
  if (e instanceof TypeError && /fetch/i.test(e.message)) return 'Packdesk did not answer: check that it is running, then try again';
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A path as the service writes it before a problem in a plain text (`shipment.ship_to.postal_code: …`). */
const PATH_IN_TEXT = /(^|; )([a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*(?:\[\d+\])?)*): /g;

/** A failure the service wrote as one plain text (a batch's order: `path: info; path: info`, or
 * a code's message) in the operator's words, each field by its label. */
export function textWords(text: string): string {
  const t = text.trim();
  const code = Object.entries(CODES).find(([, [contract]]) => contract === t);
  if (code) return code[1][1];
  // Where each `path: ` starts; the text between two of them is the first one's info.
  const starts = [...t.matchAll(PATH_IN_TEXT)].filter((m) => isPath(m[2]));
  if (!starts.length) return capital(problemWords({ info: t }));
  const details: Detail[] = [];
  const lead = t.slice(0, starts[0].index).trim();
  if (lead) details.push({ path: '', info: lead });
  starts.forEach((m, i) => {
    const from = (m.index ?? 0) + m[0].length;
    const to = i + 1 < starts.length ? starts[i + 1].index : t.length;
    details.push({ path: m[2], info: t.slice(from, to) });
  });
  return failureWords({ code: 4104, message: '', details });
}

/** Why a bulk download made no file. */
export function bulkDownloadWords(d: { status: string; invalid_labels?: unknown[] }): string {
  const without = d.invalid_labels?.length ?? 0;
  if (without) {
    return `The download could not be made: ${without === 1 ? 'one of the chosen labels has' : `${without} of the chosen labels have`} no file (voided, or not made yet). Choose others and try again`;
  }
  return 'The download could not be made: try again, or download the labels one by one';
}
