// The service's failures in the operator's words. The /v3 envelope keeps the contract's text (a
// code, its fixed message, details with a request path and developer-facing info); the desk shows
// each problem once: the field as the form calls it, what is wrong, what to do. The service's
// English texts are recognised by the patterns here; every word the desk shows comes from the
// catalogue (`problems.`, `field.`: i18n/parts/problems.json) through `t`. Its one import at run
// time is the i18n module, so node loads it through vite, as the page does (tests/desk-words.test.mjs).

import { formatNumber, hasText, regionName, t } from './i18n/index.svelte';
import type { Detail } from './types';

/** A failure as the envelope's `meta` carries it (an `ApiError` is one). */
export interface Failure {
  code: number;
  message: string;
  details: Detail[];
}

/** Segments of a request path that are no field of their own (`shipment`, the `value` of a weight,
 * the `id` of an account; an option's `type`: the rewritten problem names the option itself, "TIPSA
 * does not offer cash on delivery"). */
const UNNAMED = new Set(['shipment', 'address', 'parcel', 'dimension', 'value', 'amount', 'id', 'settings', 'when', 'type', 'credentials']);

/** Segments the forms call by a word of their own: the catalogue's `field.<segment>` (`postal_code`
 * is "postcode"). Others read with spaces. */
const NAMED = new Set([
  'ship_to', 'ship_from', 'customs', 'importer_address', 'contact_name', 'company_name', 'street1', 'street2', 'street3', 'state',
  'postal_code', 'tax_id', 'description', 'origin_country', 'hs_code', 'sku', 'item_id', 'price', 'cod_value', 'insured_value', 'start_time', 'end_time', 'service_type',
  'service_option', 'shipper_account', 'shipper_account_ids', 'order_number', 'order_id', 'ship_date', 'paper_size', 'file_type',
  'return_shipment', 'delivery_instructions', 'number_of_copies', 'paid_by', 'account_number', 'terms_of_trade', 'cutoff_time', 'timezone',
  'printer_id', 'join_code', 'update_url', 'preset', 'name', 'url', 'dpi', 'weight_min', 'weight_max', 'ship_to_country', 'items_min',
  'items_max', 'is_default', 'auto_print', 'postal_code_override', 'tracking_ranges', 'range_warning',
]);

/** Paths of one segment that a form names its own way (the catalogue's key; '' for none). */
const TOP: Record<string, string> = {
  again: '',
  address: 'field.top.address',
  description: 'field.top.description',
  parcels: 'field.top.parcels',
};

/** Numbered things: `items[1]` is Item 2 (`word`: the catalogue's key, a message of {n}). `first`:
 * the key of what the first one is called where the form gives it no number (the scanned
 * reference), '' for nothing at all (the Ship form's own parcel). */
const NUMBERED: Record<string, { word: string; first?: string }> = {
  parcels: { word: 'field.numbered.parcel', first: '' },
  references: { word: 'field.numbered.reference', first: 'field.first.reference' },
  items: { word: 'field.numbered.item' },
  rules: { word: 'field.numbered.rule' },
  order_ids: { word: 'field.numbered.order' },
  // An option is named by its own checkbox; its number says nothing to the operator.
  service_options: { word: '', first: '' },
};

/** Segments that read as themselves in English (`city`), in the catalogue all the same (`field.city`).
 * Unlike NAMED, they do not make a text's `items.quantity` a field's path (an import column's name). */
const PLAIN = new Set(['city', 'country', 'phone', 'email', 'weight', 'tare', 'width', 'height', 'depth', 'unit', 'quantity', 'currency']);

const segmentWord = (s: string) => (UNNAMED.has(s) ? '' : NAMED.has(s) || PLAIN.has(s) ? t(`field.${s}`) : s.replace(/_/g, ' '));
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
    const words = [segmentWord('tracking_ranges'), pool === 'default' ? '' : `(${pool.replace(/_/g, ' ')})`, i === undefined ? '' : String(Number(i) + 1), end ? t(`field.range.${end}`) : ''];
    return capital(words.filter((w) => w).join(' '));
  }
  if (path in TOP) return capital(TOP[path] && t(TOP[path]));
  const words: string[] = [];
  for (const seg of path.split('.')) {
    const m = seg.match(/^(\w+)\[(\d+)\]$/);
    if (!m) {
      words.push(segmentWord(seg));
      continue;
    }
    const n = Number(m[2]) + 1;
    const what = NUMBERED[m[1]];
    if (!what) {
      const word = segmentWord(m[1]);
      words.push(word && `${word} ${n}`);
    } else if (n === 1 && what.first !== undefined) words.push(what.first && t(what.first));
    else words.push(what.word && t(what.word, { n }));
  }
  return capital(words.filter((w) => w.trim()).join(' ').trim());
}

// Countries by their alpha-3 code (the service's texts name them so); filled from the desk's
// country list once it has loaded, until then the code stands for the name.
let countryNames = new Map<string, { name: string; alpha2?: string }>();

/** The desk's country list, for naming countries in messages. */
export function nameCountries(list: { alpha3: string; alpha2?: string; name: string }[]) {
  if (list.length !== countryNames.size) countryNames = new Map(list.map((c) => [c.alpha3, c]));
}

const country = (code: string) => {
  const c = countryNames.get(code.trim().toUpperCase());
  return c ? regionName(c.alpha2, c.name) : code;
};
/** Things of which one is meant: "Spain, France or Italy" (as the desk has always written them;
 * English's Intl.ListFormat would write "Spain, France, or Italy"). */
const orList = (items: string[]) => (items.length < 2 ? items.join('') : t('problems.orList', { items: items.slice(0, -1).join(', '), last: items[items.length - 1] }));
const countries = (codes: string) => orList(codes.split(/,\s*/).map(country));
/** A figure of the service's text the language's way (68,5 in German), its digits not grouped
 * (a range's end is a tracking number). */
const figure = (s: string) => (s.trim() && Number.isFinite(Number(s)) ? formatNumber(Number(s), { maximumFractionDigits: 3, useGrouping: false }) : s);

/** The service options as the Ship form names them (the catalogue's `problems.option.<type>`). */
const OPTIONS = new Set(['cod', 'insurance', 'pickup', 'saturday_delivery']);
const option = (o: string) => (OPTIONS.has(o) ? t(`problems.option.${o}`) : o.replace(/_/g, ' '));

/** The postal code advice, the same whoever found the problem (the form as it is typed, address
 * validation, the label request). */
const postcodeWords = (place: string, formats: string) => t('problems.notPostcodeOf', { country: country(place), formats });

/** The desk's own check of a postal code as it is typed (postalProblem, countries.svelte.ts) says
 * it in the screen's language: its text there, as a pattern taking the country and the formats. */
function ownPostalProblem(info: string): string {
  const text = t('countries.notPostalCode', { typed: '\u0001', country: '\u0002', formats: '\u0003' });
  const pattern = text
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace('\u0001', '.*')
    .replace('\u0002', '(?<country>.+?)')
    .replace('\u0003', '(?<formats>.+)');
  const found = info.match(new RegExp(`^${pattern}$`))?.groups;
  return found?.country && found.formats ? postcodeWords(found.country, found.formats) : '';
}

/** A document type of the service (`packing_slip`) as a plural, for "not set for packing slips". */
const documents = (doc: string) => (hasText(`documents.${doc}`) ? t(`documents.${doc}`) : `${doc.replace(/_/g, ' ')}s`);

/** The service's developer-facing texts, each with the operator's words for it. The first match wins. */
const REWRITES: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^is required$/, () => t('problems.isEmpty')],
  // A pool's ranges: used up (4730) or given out of order.
  [/^The tracking-number range of (.+) \(pool (\w+)\) is used up: (\d+) left, (\d+) needed/, ([, account, pool, left, needed]) =>
    t('problems.rangeUsedUp', { account, pool, left: figure(left), needed: figure(needed) })],
  [/^The tracking-number range of (.+) \(pool (\w+)\) has no tracking-number range set/, ([, account, pool]) => t('problems.rangeNotSet', { account, pool })],
  [/^ranges are used in order: this one must start above the previous range's end \((\d+)\)$/, ([, end]) => t('problems.rangeOutOfOrder', { end: figure(end) })],
  [/^at least one range/, () => t('problems.noRange')],
  [/^is required for a (\w+) option$/, (m) => t('problems.emptyForOption', { option: option(m[1]) })],
  [/^is required when paid_by is third_party/, () => t('problems.emptyForThirdParty')],
  [/^.+ \(\w+\) is required by (.+)$/, (m) => t('problems.emptyForCarrier', { carrier: m[1] })],
  [/^missing field `.*`$/, () => t('problems.isEmpty')],
  [/^unknown variant `(.*)`, expected/, ([, value]) => t('problems.notOffered', { value })],
  [/^invalid type: .*, expected (.+?)(?: at line .*)?$/, ([, want]) =>
    /^(f64|f32|[iu]\d+|a number|an integer)/.test(want) ? t('problems.mustBeNumber')
    : want === 'a string' ? t('problems.mustBeText')
    : want === 'a boolean' ? t('problems.mustBeYesOrNo')
    : t('problems.wrongForm')],
  [/^is required for ([A-Z]{3})$/, (m) => t('problems.emptyForCountry', { country: country(m[1]) })],
  [/^length must be (\d+)\.\.(\d+) characters, is (\d+)$/, ([, min, max, n]) =>
    Number(n) === 0 ? t('problems.isEmpty')
    : Number(n) > Number(max) ? t('problems.tooLong', { max: Number(max), n: Number(n) })
    : t('problems.tooShort', { min: Number(min), n: Number(n) })],
  [/^(?:length must be )?(\d+)(?:\.\.| to )(\d+) characters$/, ([, min, max]) => t('problems.lengthBetween', { min: Number(min), max: Number(max) })],
  [/^(\d+) characters; (.+) allows at most (\d+)$/, ([, n, carrier, max]) => t('problems.tooLongFor', { carrier, max: Number(max), n: Number(n) })],
  [/^longer than (\d+) characters; split it over/, ([, max]) => t('problems.carryOnStreet2', { max: Number(max) })],
  // The label request, address validation and the form's own check of a postal code.
  [/^[`“].*[`”] is not a postal code of (.+?) \(format (.+)\)/, ([, place, formats]) => postcodeWords(place, formats)],
  [/^not a postal code of (.+?) \(format (.+)\)$/, ([, place, formats]) => postcodeWords(place, formats)],
  [/^`(.*)` is not an ISO 3166 alpha-3 country code/, ([, code]) => t('problems.unknownCountry', { code })],
  [/^`(.*)` is not an ISO 4217 currency code$/, ([, code]) => t('problems.unknownCurrency', { code })],
  [/^is not an email address$/, () => t('problems.notEmail')],
  [/^must be 0\.\.([\d.]+) (\w+)$/, ([, max, unit]) => t('problems.betweenZeroAnd', { max: figure(max), unit })],
  [/^must be a number from 0 to /, () => t('problems.zeroOrMore')],
  [/^must be a date YYYY-MM-DD$/, () => t('problems.notDate')],
  [/^(\S+) is in the past everywhere on earth/, ([, date]) => t('problems.inThePast', { date })],
  [/^is more than 30 days ahead$/, () => t('problems.tooFarAhead')],
  [/^must be a time of day HH:MM:SS$/, () => t('problems.notTimeOfDay')],
  [/^a time of day HH:MM \(24 hours\)/, () => t('problems.notTimeOfDay24h')],
  [/^must be after start_time$/, () => t('problems.afterPickupStart')],
  [/^`(.*)` is a service of (.+), but the shipper account is (.+) \(.*\)$/, ([, service, other, carrier]) => t('problems.serviceOfOtherCarrier', { service, other, carrier })],
  [/^unknown service_type `(.*)`; (.+) offers:/, ([, service, carrier]) => t('problems.notServiceOf', { service, carrier })],
  // The route checks, as the service words them now (`… stays within one country and this parcel
  // goes GBR to ESP`, `… ships to IND only, not ESP`) and as it did (`… is a domestic service`).
  [/^(.+?) (?:is a (domestic|international) service|(stays within one country|goes abroad only) and this parcel goes)(?:;? this shipment goes)? ?(?:(\w+) to (\w+))?$/, ([, service, scope, runs, from, to]) =>
    t('problems.wrongRoute', {
      service,
      scope: scope === 'domestic' || runs === 'stays within one country' ? 'domestic' : 'abroad',
      route: !from ? 'none' : from === to ? 'stays' : 'goes',
      from: from ? country(from) : '',
      to: to ? country(to) : '',
    })],
  [/^(.+) ships (from|to) (.+) only(?:, not \w+)?$/, ([, carrier, direction, list]) => t('problems.notServedBy', { carrier, direction, countries: countries(list) })],
  [/^order (\S+) was shipped(?: at desk (.*?))? on (\S+) with label \S+ \(tracking (.*)\); send "again"/, ([, order, desk, when, tracking]) =>
    t('problems.shippedAlready', { order, where: desk ? 'desk' : 'none', desk: desk ?? '', date: when.slice(0, 10), tracking })],
  [/^(.+) does not ship (from|to) (\w+)$/, ([, carrier, direction, c]) => t('problems.doesNotShip', { carrier, direction, country: country(c) })],
  [/^`(.*)` is not available for (.+); allowed: (.+)$/, ([, value, carrier, list]) => t('problems.notAvailableFor', { value, carrier, allowed: orList(list.split(', ')) })],
  [/^(.+) does not accept file_type/, ([, carrier]) => t('problems.pdfOnly', { carrier })],
  [/^(.+) does not accept (\w+) \(accepted optional fields/, ([, carrier]) => t('problems.notTakenBy', { carrier })],
  [/^(.+) does not offer `(\w+)` options/, ([, carrier, o]) => t('problems.optionNotOffered', { carrier, option: option(o) })],
  [/^unknown service option `(.*)`/, ([, o]) => t('problems.unknownOption', { option: o })],
  [/^`(.*)` is given twice$/, ([, o]) => t('problems.chosenTwice', { option: option(o) })],
  [/^`(.*)` is on another label of this shipper account$/, ([, order]) => t('problems.orderNumberTaken', { order })],
  [/^`(.*)` is not an IANA timezone/, ([, zone]) => t('problems.notTimeZone', { zone })],
  [/^must be a UUID$/, () => t('problems.unknownId')],
  [/^must be a string$/, () => t('problems.mustBeText')],
  [/^(?:must be (?:a whole number )?)?(\d+)\.\.(\d+)$/, ([, min, max]) => t('problems.between', { min: figure(min), max: figure(max) })],
  [/^host:port of the printer/, () => t('problems.printerAddress')],
  [/^`(.*)` is not a port/, ([, port]) => t('problems.notPort', { port })],
  [/^a spooler queue name: (.*)$/, ([, how]) => t('problems.spoolerQueue', { how: how.replace(/ \(see the printers of this computer\)$/, '') })],
  [/^an ipp:\/\/ URI/, () => t('problems.ippAddress')],
  [/^(\d+) characters; at most (\d+)$/, ([, n, max]) => t('problems.tooLong', { max: Number(max), n: Number(n) })],
  [/^below (\w+) (.+)$/, ([, field, value]) => t('problems.notBelow', { field: segmentWord(field), value })],
  [/^no printer profile for (\w+):/, ([, doc]) => t('problems.noPrinterFor', { documents: documents(doc) })],
  [/^one of: (.+)$/, ([, list]) => t('problems.oneOf', { list })],
  [/^(\d+(?:, \d+)* or \d+)$/, ([, list]) => t('problems.mustBe', { what: orList(list.split(/, | or /)) })],
  [/^(?:pdf or zpl|a weight of|a time of day|a PostgreSQL address)/, (m) => t('problems.mustBe', { what: plainWords(m.input ?? '') })],
];

/** Words that start a predicate: the field's label reads straight into them ("Recipient name is empty"). */
const PREDICATE = /^(is|are|must|does|do|has|cannot|can)\b/;

/** What is wrong at one detail, in the operator's words (the field not named): the service's
 * developer-facing texts rewritten, anything already plain kept as it is. */
export function problemWords(detail: Pick<Detail, 'info' | 'key' | 'args'>): string {
  const said = saidWords(detail);
  if (said) return said;
  const info = detail.info.trim();
  const own = ownPostalProblem(info);
  if (own) return own;
  for (const [re, words] of REWRITES) {
    const m = info.match(re);
    if (m) return words(m);
  }
  return plainWords(info);
}

/** A problem the service said by its key (`said.<key>` in the catalogue), in the screen's
 * language; '' when it gave none, or one this desk has no words for (a newer upstream's). Its
 * arguments as the operator reads them: countries by name, options and fields by the form's words. */
function saidWords(detail: Pick<Detail, 'key' | 'args'>): string {
  const key = detail.key ? `said.${detail.key}` : '';
  if (!key || !hasText(key)) return '';
  const args: Record<string, string | number> = { ...(detail.args ?? {}) };
  for (const name of ['country', 'from', 'to']) if (args[name] !== undefined) args[name] = country(String(args[name]));
  if (args.only !== undefined) args.only = countries(String(args.only));
  if (args.option !== undefined) args.option = option(String(args.option));
  if (args.field !== undefined) args.field = lowerFirst(fieldLabel(String(args.field))) || String(args.field);
  if (args.allowed !== undefined) args.allowed = orList(String(args.allowed).split(/,\s*/));
  // Choices the words make from the arguments: how a length is wrong, what type was expected.
  if (detail.key === 'length') {
    const [n, max] = [Number(args.n), Number(args.max)];
    args.kind = n === 0 ? 'empty' : n > max ? 'long' : 'short';
  }
  if (detail.key === 'wrongType') {
    const expected = String(args.expected ?? '');
    args.kind = /^(f64|f32|[iu]\d+|a number|an integer)/.test(expected) ? 'number' : expected === 'a string' ? 'text' : expected === 'a boolean' ? 'yesNo' : 'other';
  }
  return t(key, args);
}

/** A text that no rule knows, with its code-isms softened: `x` quoted, field paths and
 * snake_case names (outside quotes) as the form calls them. */
function plainWords(text: string): string {
  return text
    .replace(/`([^`]*)`/g, '“$1”')
    .replace(/\be\.g\./g, () => t('problems.suchAs'))
    .split(/(“[^”]*”)/)
    .map((part, i) => (i % 2 ? part : part.replace(PATH_TOKEN, (p) => (/[_.[]/.test(p) && isPath(p) ? lowerFirst(fieldLabel(p)) : p))))
    .join('');
}

/** A word of a request path (`ship_to`, `parcels[1]`, `postal_code_override`) that reads as a field. */
const PATH_TOKEN = /\b[a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*(?:\[\d+\])?)*/g;
const knownSegment = (seg: string) => {
  const name = seg.replace(/\[\d+\]$/, '');
  return UNNAMED.has(name) || NAMED.has(name) || name in TOP || name in NUMBERED;
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

/** The codes the desk has its own words for (the catalogue's `problems.code<code>`), each with a
 * pattern of the contract's fixed message, so a text that carries only the message (a batch's
 * failure) is recognised too. */
const CODES: Record<number, RegExp> = {
  401: /^Invalid API key\.$/,
  404: /^The requested resource does not exist\.$/,
  405: /^The method is not allowed on this resource\.$/,
  413: /^The request body is too large\.$/,
  4100: /^Internal Error\.$/,
  4101: /^Internal Error, please try again\.$/,
  4104: /^The request was invalid or cannot be otherwise served\.$/,
  4109: /^Invalid JSON\.$/,
  4140: /^Shipper account not found\.$/,
  4153: /^Item does not exist\.$/,
  4155: /^Access to shipper_account locked during manifest\/cancel-label operation\.$/,
  4171: /^Operation is not allowed on this courier\.$/,
  4713: /^All or partial failed in rate request\.$/,
  4716: /^The address length is too long\.$/,
  4722: /^The tracking number is already canceled, it can not be canceled again\.$/,
  4724: /^The tracking number is manifested, so can not be canceled\.$/,
  4725: /^There is no shipments to manifest\.$/,
  4730: /^No more pre-assigned tracking numbers available in this shipper account\. Please input the new tracking numbers in your shipper account setting page\.$/,
  4801: /^Duplicate order_number, please specify a different order_number and try again\.$/,
  4802: /^The service_type is not available for this shipment\.$/,
  4803: /^The service_type and service_option are not available for this shipment\.$/,
};

/** A code's message in the operator's words (the envelope's own message for a code the desk does not know). */
export function codeWords(code: number, message = ''): string {
  if (code in CODES) return t(`problems.code${code}`);
  return message ? plainWords(message) : t('problems.serviceRefused');
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
  if (e instanceof TypeError && /fetch/i.test(e.message)) return t('problems.noAnswer');
  if (e instanceof Error) return e.message;
  return String(e);
}

/** A path as the service writes it before a problem in a plain text (`shipment.ship_to.postal_code: …`). */
const PATH_IN_TEXT = /(^|; )([a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*(?:\[\d+\])?)*): /g;

/** A failure the service wrote as one plain text (a batch's order: `path: info; path: info`, or
 * a code's message) in the operator's words, each field by its label. */
export function textWords(text: string): string {
  const whole = text.trim();
  const code = Object.entries(CODES).find(([, contract]) => contract.test(whole));
  if (code) return t(`problems.code${code[0]}`);
  // Where each `path: ` starts; the text between two of them is the first one's info.
  const starts = [...whole.matchAll(PATH_IN_TEXT)].filter((m) => isPath(m[2]));
  if (!starts.length) return capital(problemWords({ info: whole }));
  const details: Detail[] = [];
  const lead = whole.slice(0, starts[0].index).trim();
  if (lead) details.push({ path: '', info: lead });
  starts.forEach((m, i) => {
    const from = (m.index ?? 0) + m[0].length;
    const to = i + 1 < starts.length ? starts[i + 1].index : whole.length;
    details.push({ path: m[2], info: whole.slice(from, to) });
  });
  return failureWords({ code: 4104, message: '', details });
}

/** Why a bulk download made no file. */
export function bulkDownloadWords(d: { status: string; invalid_labels?: unknown[] }): string {
  const without = d.invalid_labels?.length ?? 0;
  return without ? t('problems.downloadNoFile', { count: without }) : t('problems.downloadFailed');
}
