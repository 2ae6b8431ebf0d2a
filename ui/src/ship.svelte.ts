// The Ship form as one typed object: what the operator has typed, what follows from it (the
// account's carrier, what that carrier allows, whether customs apply) and the requests it makes.
// Ship.svelte renders it and talks to the service; the rules of the form live here.
import type {
  Address,
  Carrier,
  CustomsPurpose,
  DimensionUnit,
  FileType,
  LabelRequest,
  Order,
  PaperSize,
  Parcel,
  Preset,
  PresetRequest,
  PrintJob,
  PrintProfile,
  Printer,
  Label,
  RatesRequest,
  ServiceOption,
  ServiceTypeDef,
  ShipperAccount,
  WeightUnit,
} from './types';
import { untrack } from 'svelte';
import type { BoxPreset } from './boxes';
import { formatDecimal, parseDecimal } from './numbers';
import { convertWeight } from './scale';
import { toAlpha3 } from './countries.svelte';
import { api } from './api';
import { printErrorWords, printJobWords } from './words';
import { t } from './i18n/index.svelte';

/** Domestic or international: which services fit a route, and which last-used one it defaults to. */
export type RouteKind = 'domestic' | 'international';

/** A service for return parcels (the registry has no mark for them: its name or type says so,
 * in the carriers' own languages). */
const RETURN = /\b(return|retorno|devoluci)/i;
const isReturn = (s: ServiceTypeDef) => RETURN.test(s.name) || RETURN.test(s.code);

/** Where the service last used on an account for a kind of route is remembered. */
const lastServiceKey = (accountId: string, kind: RouteKind) => `packdesk.service.${accountId}.${kind}`;

/** A further parcel as typed. */
export type ParcelForm = { weight: string; width: string; height: string; depth: string };

/** The service options' part of the form: which are on, and their values as typed. */
export type OptionsForm = {
  cod?: boolean;
  cod_amount?: string;
  insurance?: boolean;
  insured_amount?: string;
  pickup?: boolean;
  pickup_start?: string;
  pickup_end?: string;
  saturday_delivery?: boolean;
};

/** One customs item as typed (numbers stay text until the request is built). */
export type ItemForm = {
  description: string;
  quantity: number;
  price: string;
  weight: string;
  origin_country: string;
  hs_code: string;
};

/** What the form says of a parcel nobody weighed (empty, 0 or below). */
const weigh = () => t('shipForm.weighTheParcel');

/** A weight as typed: its problem in the operator's words, or null when it is one above 0. */
function weightProblem(text: string): string | null {
  if (!text.trim()) return weigh();
  const v = parseDecimal(text);
  if (v === null) return t('shipForm.notAWeight', { text: text.trim() });
  return v > 0 ? null : weigh();
}

/** An optional number as typed (a size, an item's weight): its problem, or null. */
function optionalProblem(text: string, what: string): string | null {
  if (!text.trim()) return null;
  const v = parseDecimal(text);
  return v !== null && v > 0 ? null : t('shipForm.notANumberAbove0', { text: text.trim(), what });
}

/** A number typed in a field the form checked first (`problems`): empty or not a number is 0. */
const num = (text: string) => parseDecimal(text) ?? 0;

/** An order's weight in kg as the service reads it (presets.rs `order_weight`): its own, its
 * parcels', or its items' weights × quantities when every item has one; else null. */
export function orderKg(o: Order): number | null {
  if (o.weight) return convertWeight(o.weight, 'kg');
  if (o.parcels?.length) return o.parcels.reduce((kg, p) => kg + convertWeight(p.weight, 'kg'), 0);
  if (o.items.length && o.items.every((i) => i.weight)) {
    return o.items.reduce((kg, i) => kg + convertWeight(i.weight!, 'kg') * i.quantity, 0);
  }
  return null;
}

export const blankAddress = (): Address => ({ contact_name: '', street1: '', city: '', postal_code: '', country: '' });
const blankItem = (): ItemForm => ({ description: '', quantity: 1, price: '', weight: '', origin_country: '', hs_code: '' });

/** Whether two addresses say the same (a field missing and an empty one are alike). */
function sameAddress(a: Address, b: Address): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].every((k) => (x[k] ?? '') === (y[k] ?? ''));
}

/** The fields an address suggestion may change. */
const SUGGESTED = ['street1', 'city', 'postal_code', 'state', 'country'] as const;

export class ShipForm {
  reference = $state('');
  orderNumber = $state('');
  accountId = $state('');
  serviceType = $state('');
  paperSize = $state<PaperSize>('default');
  fileType = $state<FileType>('pdf');
  from = $state<Address>(blankAddress());
  to = $state<Address>(blankAddress());
  /** The first parcel's weight as typed: empty until the scale, an order or the operator gives it. */
  weight = $state('');
  /** The desk's units (Settings); the label keeps what was typed ("55 lb" stays 55 lb). */
  weightUnit = $state<WeightUnit>('kg');
  dimensionUnit = $state<DimensionUnit>('cm');
  dims = $state<Record<'width' | 'height' | 'depth', string>>({ width: '', height: '', depth: '' });
  /** The second and further parcels of a shipment (the first is `weight` and `dims`). */
  more = $state<ParcelForm[]>([]);
  options = $state<OptionsForm>({});
  invoice = $state(false);
  purpose = $state<CustomsPurpose>('merchandise');
  items = $state<ItemForm[]>([blankItem()]);

  /** "Show all services": every service of the carrier, not only those that fit the route. */
  allServices = $state(false);

  /** The order a scan loaded (its label is made by shipping it), a shipped one scanned again, and
   * whether the operator typed a weight for the loaded order. */
  order = $state<Order | null>(null);
  shippedBefore = $state<Order | null>(null);
  weighed = $state(false);

  /** Whether the desk set the form up once (its units, the default preset): a Ship screen opened
   * again finds the form as it was left. */
  started = false;
  /** The desk's units (Settings) the form last took: changed there, the form takes them again. */
  deskUnits = '';

  /** The sender the desk gave (the account's address or a preset's): once the sender differs
   * from it, it is the operator's own for this parcel and an account change leaves it alone. */
  #fromGiven = $state<Address>(blankAddress());
  /** The account whose sender was given. */
  #fromFor = '';
  /** The account the service options were chosen for. */
  #optionsFor = '';
  /** The service a preset gave: the default wherever it fits. */
  #presetService = '';
  /** The operator chose the service in the list: it stays while it fits. */
  #byHand = false;
  /** The account and route kind the service was last chosen for. */
  #chosenFor = '';
  /** The desk's carriers and accounts, as the Ship screen showing the form has them. */
  #lists = $state.raw<{ carriers: () => Carrier[]; accounts: () => ShipperAccount[] }>({ carriers: () => [], accounts: () => [] });

  account = $derived.by(() => this.#lists.accounts().find((a) => a.id === this.accountId));
  carrier = $derived.by(() => {
    const slug = this.account?.slug;
    return slug ? this.#lists.carriers().find((c) => c.slug === slug) : undefined;
  });
  fromEdited = $derived(!sameAddress(this.from, this.#fromGiven));
  // The registry lists sizes and types by the contract's names.
  fileTypes = $derived((this.carrier?.file_types ?? ['pdf']) as FileType[]);
  paperSizes = $derived((this.carrier?.paper_sizes ?? []) as PaperSize[]);
  variants = $derived<string[]>(this.carrier?.service_options ?? []);
  currency = $derived<string>(this.carrier?.currency ?? 'EUR');
  crossBorder = $derived(
    !!this.from.country &&
      !!this.to.country &&
      this.from.country.trim().toUpperCase() !== this.to.country.trim().toUpperCase(),
  );

  routeKind = $derived<RouteKind>(this.crossBorder ? 'international' : 'domestic');
  /** The services offered, by name: those that run on the route (scope `any` or the route's
   * kind), without return services, unless all are asked for (or returns are all there is). */
  services = $derived.by(() => {
    const all = [...(this.carrier?.service_types ?? [])].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    if (this.allServices) return all;
    const fit = all.filter((s) => s.scope === 'any' || s.scope === this.routeKind);
    const outbound = fit.filter((s) => !isReturn(s));
    return outbound.length ? outbound : fit;
  });

  /** Called while the Ship screen starts: its effects keep the form consistent with the account
   * while it shows. The form itself outlives the screen (History and back keeps what was typed). */
  attach(carriers: () => Carrier[], accounts: () => ShipperAccount[]) {
    this.#lists = { carriers, accounts };
    // No account yet, or one no longer enabled: the first one.
    $effect(() => {
      const list = accounts();
      if (list.length && !list.some((a) => a.id === this.accountId)) this.accountId = list[0].id;
    });
    // A new account or kind of route: its default service, unless the operator's choice still fits.
    $effect(() => {
      const list = this.services;
      const chosenFor = `${this.accountId}|${this.routeKind}`;
      untrack(() => {
        const fits = list.some((s) => s.service_type === this.serviceType);
        if (fits && (this.#byHand || chosenFor === this.#chosenFor)) return;
        this.#chosenFor = chosenFor;
        this.#byHand = false;
        this.serviceType = this.defaultService(list);
      });
    });
    // A new account: its carrier's paper, its ship-from address, no options.
    $effect(() => {
      const c = this.carrier;
      if (c && !this.paperSizes.includes(this.paperSize)) {
        this.paperSize = (c.default_paper_size as PaperSize) ?? this.paperSizes[0];
      }
      if (!this.fileTypes.includes(this.fileType)) this.fileType = this.fileTypes[0];
    });
    // Another account: its address is the sender, unless the operator typed this parcel's own.
    $effect(() => {
      const id = this.accountId;
      const address = this.account?.address;
      untrack(() => {
        if (!address || id === this.#fromFor) return;
        this.#fromFor = id;
        this.giveFrom({ ...blankAddress(), ...address });
      });
    });
    // Another account: no options (another carrier's options mean nothing to it).
    $effect(() => {
      const id = this.accountId;
      untrack(() => {
        if (id === this.#optionsFor) return;
        this.#optionsFor = id;
        this.options = {};
      });
    });
  }

  /** The desk's sender for the parcel: it replaces the sender unless the operator changed it. */
  private giveFrom(address: Address) {
    if (!this.fromEdited) this.from = { ...address };
    this.#fromGiven = address;
  }

  /** The service a form starts with: the preset's, else the one last used on the account for this
   * kind of route, else the first of the list (each only where it is in the list). */
  private defaultService(list: ServiceTypeDef[]): string {
    const last = localStorage.getItem(lastServiceKey(this.accountId, this.routeKind)) ?? '';
    const offered = [this.#presetService, last].find((t) => t && list.some((s) => s.service_type === t));
    return offered ?? list[0]?.service_type ?? '';
  }

  /** The operator chose a service in the list. */
  serviceChosen() {
    this.#byHand = true;
  }

  /** A label was made: its service is the account's default for this kind of route from now on. */
  rememberService() {
    localStorage.setItem(lastServiceKey(this.accountId, this.routeKind), this.serviceType);
  }

  parcel(): Parcel {
    const p = this.parcelOf({ weight: this.weight, ...this.dims });
    if (this.crossBorder) {
      p.items = this.items.map((i) => ({
        description: i.description,
        quantity: Number(i.quantity),
        price: { amount: Number(i.price), currency: this.currency },
        weight: { value: num(i.weight), unit: 'kg' },
        // "GB", "UK" or "England" as the customs line's alpha-3, as for an address.
        ...(i.origin_country ? { origin_country: toAlpha3(i.origin_country) } : {}),
        ...(i.hs_code ? { hs_code: i.hs_code } : {}),
      }));
    }
    return p;
  }

  /** Every parcel of the form: the first, then the further ones. */
  parcels(): Parcel[] {
    return [this.parcel(), ...this.more.map((p) => this.parcelOf(p))];
  }

  /** A parcel as typed, in the request's numbers. */
  private parcelOf(f: ParcelForm): Parcel {
    const p: Parcel = { weight: { value: num(f.weight), unit: this.weightUnit } };
    if (f.width && f.height && f.depth) {
      p.box_type = 'custom';
      p.dimension = { width: num(f.width), height: num(f.height), depth: num(f.depth), unit: this.dimensionUnit };
    }
    return p;
  }

  /**
   * What stops the form's parcels from being labelled, by field (as `data-field` names it), in
   * the operator's words; empty when nothing does. `firstWeight`: whether the first parcel's
   * weight is the form's to give (not when a loaded order's own weight goes on the label).
   */
  problems(firstWeight = true): Record<string, string> {
    const out: Record<string, string> = {};
    const put = (path: string, problem: string | null) => problem && (out[path] = problem);
    const parcels: ParcelForm[] = [{ weight: this.weight, ...this.dims }, ...this.more];
    parcels.forEach((f, i) => {
      if (i > 0 || firstWeight) put(`shipment.parcels[${i}].weight.value`, weightProblem(f.weight));
      for (const d of ['width', 'height', 'depth'] as const) put(`shipment.parcels[${i}].dimension.${d}`, optionalProblem(f[d], t('shipForm.aSize')));
    });
    if (this.crossBorder) this.items.forEach((item, i) => put(`shipment.parcels[0].items[${i}].weight.value`, optionalProblem(item.weight, t('shipForm.aWeight'))));
    return out;
  }

  /** The items' total weight in kg (customs items, each weight × quantity), when every item has one. */
  itemsKg(): number | null {
    if (!this.crossBorder || !this.items.every((i) => parseDecimal(i.weight))) return null;
    return this.items.reduce((kg, i) => kg + num(i.weight) * Number(i.quantity), 0);
  }

  /** Another parcel: empty, or a copy of the last one (same box, same weight). */
  addParcel(copy: boolean) {
    const last: ParcelForm = this.more.at(-1) ?? { weight: this.weight, ...this.dims };
    this.more = [...this.more, copy ? { ...last } : { weight: '', width: '', height: '', depth: '' }];
  }

  removeParcel(i: number) {
    this.more = this.more.filter((_, j) => j !== i);
  }

  serviceOptions(): ServiceOption[] {
    const o = this.options;
    const out: ServiceOption[] = [];
    if (o.cod) out.push({ type: 'cod', cod_value: { amount: Number(o.cod_amount), currency: this.currency } });
    if (o.insurance) out.push({ type: 'insurance', insured_value: { amount: Number(o.insured_amount), currency: this.currency } });
    if (o.pickup) out.push({ type: 'pickup', start_time: o.pickup_start, end_time: o.pickup_end });
    if (o.saturday_delivery) out.push({ type: 'saturday_delivery', enabled: true });
    return out;
  }

  /** The label request of the form as it stands. */
  labelRequest(): LabelRequest {
    const body: LabelRequest = {
      service_type: this.serviceType,
      shipper_account: { id: this.accountId },
      paper_size: this.paperSize,
      shipment: { ship_from: this.from, ship_to: this.to, parcels: this.parcels() },
    };
    // A group without file types takes no file_type field at all.
    if (this.carrier?.file_types) body.file_type = this.fileType;
    const opts = this.serviceOptions();
    if (opts.length) body.service_options = opts;
    if (this.reference.trim()) body.references = [this.reference.trim()];
    if (this.orderNumber.trim()) body.order_number = this.orderNumber.trim();
    if (this.invoice) body.invoice = null;
    if (this.crossBorder) body.customs = { purpose: this.purpose };
    return body;
  }

  /** What to price (every service of the account), or null while the route or weight is unknown. */
  ratesRequest(): RatesRequest | null {
    const { from, to } = this;
    const weight = parseDecimal(this.weight);
    if (!this.accountId || !to.country || !to.postal_code || !from.country || !weight || weight <= 0) return null;
    return {
      shipper_accounts: [{ id: this.accountId }],
      shipment: { ship_from: { ...from }, ship_to: { ...to }, parcels: [{ weight: { value: weight, unit: this.weightUnit } }] },
    };
  }

  /** Whether `suggested` differs from the recipient as typed in a way worth offering. */
  differsFrom(suggested: Address): boolean {
    return SUGGESTED.slice(0, 4).some((k) => !!suggested[k] && (suggested[k] ?? '') !== (this.to[k] ?? ''));
  }

  useAddress(suggested: Address) {
    for (const k of SUGGESTED) if (suggested[k]) this.to[k] = suggested[k];
  }

  useBox(p: BoxPreset) {
    this.dims = { width: formatDecimal(p.width), height: formatDecimal(p.height), depth: formatDecimal(p.depth) };
    this.dimensionUnit = 'cm'; // saved boxes are in cm
  }

  addItem() {
    this.items = [...this.items, blankItem()];
  }

  removeLastItem() {
    this.items = this.items.slice(0, -1);
  }

  /** Account, service, paper, file type and ship-from of a preset (the desk's default at start). */
  usePreset(p: Preset) {
    this.accountId = p.shipper_account.id;
    this.serviceType = this.#presetService = p.service_type;
    if (p.paper_size) this.paperSize = p.paper_size;
    if (p.file_type) this.fileType = p.file_type;
    // The preset's sender, else its account's address (the account's effect then changes nothing).
    const from = p.ship_from ?? this.account?.address;
    if (from) {
      this.#fromFor = p.shipper_account.id;
      this.giveFrom({ ...blankAddress(), ...from });
    }
  }

  /** The desk switched between sandbox and live: an order loaded in one is not the other's. */
  forgetOrder() {
    this.order = null;
    this.shippedBefore = null;
    this.weighed = false;
  }

  /** A name for the form's preset that says what it is: "DHL Parcel Connect from Warehouse". */
  presetName(): string {
    let service = this.services.find((s) => s.service_type === this.serviceType)?.name ?? this.serviceType;
    // The carrier's name first, unless the service's name starts with it already.
    const carrier = this.carrier?.name ?? '';
    if (carrier && !service.toLowerCase().startsWith(carrier.toLowerCase())) service = `${carrier} ${service}`;
    const from = this.from.company_name || this.from.contact_name || this.from.city;
    return from ? `${service} from ${from}` : service;
  }

  /** The form's account, service, paper and sender as a preset. */
  presetRequest(name: string, isDefault: boolean): PresetRequest {
    const body: PresetRequest = {
      name,
      shipper_account: { id: this.accountId },
      service_type: this.serviceType,
      paper_size: this.paperSize,
      ship_from: { ...this.from },
      is_default: isDefault,
    };
    if (this.carrier?.file_types) body.file_type = this.fileType;
    return body;
  }

  /** An order's recipient and weight in the form (what a scan loads); the scan field stays empty
   * for the next scan. `weight`: the order's own, as the desk writes it, or empty. */
  useOrder(o: Order, weight: string) {
    this.order = o;
    this.weighed = false;
    this.to = { ...blankAddress(), ...o.ship_to };
    this.weight = weight;
    this.more = [];
  }

  /** After a label, or cleared: the form is ready for the next parcel (same account and service;
   * the sender the account's again, or the one typed when the desk has none to give). */
  nextParcel() {
    this.forgetOrder();
    if (this.#fromGiven.street1) this.from = { ...this.#fromGiven };
    this.reference = '';
    this.orderNumber = '';
    this.to = blankAddress();
    this.items = [blankItem()];
    // What belongs to one parcel never rides along to the next.
    this.options = {};
    this.invoice = false;
    this.dims = { width: '', height: '', depth: '' };
    this.more = [];
    // The next parcel is weighed afresh: a weight kept from this one would go on it unnoticed.
    this.weight = '';
    // Its route decides its service again (the one just used is remembered for its kind).
    this.#byHand = false;
  }
}

/** The one Ship form of the desk: it keeps what was typed while other screens show. */
export const shipForm = new ShipForm();

/** The documents of a label that print, in the order the desk names them, with their words. */
const DOCUMENTS = ['label', 'packing_slip', 'invoice', 'customs_declaration'] as const;

/** Where one document of a label went: "Label → Zebra ZD421 — Printed". `failed`: it did not
 * print and the operator has to act; `job`: its newest print job (Retry sends it again). */
export type DocumentLine = { document: string; name: string; text: string; failed: boolean; noPrinter: boolean; job?: PrintJob };

/** A label made at this desk and where its documents went; `profiles`: the print profiles as
 * they were when it was made (a printer set later did not print it). */
export type PrintOutcome = { labelId: string; title: string; documents: string[]; profiles: PrintProfile[]; lines: DocumentLine[]; dismissed: boolean };

/** Each printing document of a label in the operator's words, from its newest print job, or why
 * there is none (`jobs` newest first, as the service lists them). */
export function documentLines(documents: string[], profiles: PrintProfile[], printers: Printer[], jobs: PrintJob[]): DocumentLine[] {
  const printerName = (id: string) => printers.find((p) => p.id === id)?.name ?? t('shipForm.removedPrinter');
  return DOCUMENTS.filter((doc) => documents.includes(doc)).map((document) => {
    const line = { document, name: t(`document.${document}`), failed: false, noPrinter: false };
    const plural = t(`documents.${document}`);
    const job = jobs.find((j) => j.document_type === document);
    if (job) {
      const state = printJobWords[job.status] ?? job.status;
      return job.status === 'failed'
        ? { ...line, job, failed: true, text: t('shipForm.notPrintedOn', { printer: printerName(job.printer_id), why: job.error ? printErrorWords(job.error) : t('shipForm.printerDidNotTakeIt') }) }
        : { ...line, job, text: `${printerName(job.printer_id)} — ${state}` };
    }
    const profile = profiles.find((p) => p.document_type === document);
    if (!profile) return { ...line, failed: true, noPrinter: true, text: t('shipForm.noPrinterFor', { documents: plural }) };
    if (!profile.auto_print) return { ...line, text: t('shipForm.printWhenAsked', { documents: plural }) };
    return { ...line, failed: true, text: t('shipForm.couldNotSend', { printer: printerName(profile.printer_id) }) };
  });
}

/** Whether a label's documents need the operator: one did not print. */
export const failing = (o: PrintOutcome) => o.lines.some((l) => l.failed);

/** Whether all a label's documents lacked was a printer set for them: the desk's setting, the
 * same for every label made since, not something of this label's. */
const onlyNoPrinter = (o: PrintOutcome) => failing(o) && o.lines.every((l) => !l.failed || l.noPrinter);

/**
 * The Ship screen's notices: the label shown (`shown`, printed or not), each label whose
 * documents did not print until dismissed, and the earlier ones that only lacked a printer as one
 * notice (`unprinted`, when there are two or more; never the labels of the latest parcel,
 * `latest`, its order's other boxes too): a desk without a packing-slip printer would otherwise
 * stack a notice for every order it ships and push the form off the screen.
 */
export function shipNotices(list: PrintOutcome[], shown: string | undefined, latest: string[]): { single: PrintOutcome[]; unprinted: PrintOutcome[] } {
  const open = list.filter((o) => !o.dismissed && (o.labelId === shown || failing(o)));
  const unprinted = open.filter((o) => !latest.includes(o.labelId) && onlyNoPrinter(o));
  if (unprinted.length < 2) return { single: open, unprinted: [] };
  const grouped = new Set(unprinted);
  return { single: open.filter((o) => !grouped.has(o)), unprinted };
}

/** The documents no printer was set for, in the desk's order, across `outcomes`. */
export const documentsWithoutPrinter = (outcomes: PrintOutcome[]) =>
  DOCUMENTS.filter((d) => outcomes.some((o) => o.lines.some((l) => l.document === d && l.noPrinter && l.failed)));

/** The most label outcomes the Ship screen keeps (`PrintResults.add`). */
const KEPT_MOST = 1000;

/**
 * The labels made at this desk and where their documents went, newest first, followed until
 * each document printed or failed (a failed one is retried by the print worker: a later print
 * shows, and its notice goes). A failure stays until the operator dismisses it, whichever screen
 * shows in between.
 */
class PrintResults {
  list = $state<PrintOutcome[]>([]);
  #printers: Printer[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #round = 0; // one loop of looks at a time: a newer one ends the older

  /** A new label: its documents' outcome as soon as the service has queued their prints. */
  async add(label: Label, title: string) {
    const documents = Object.entries(label.files ?? {})
      .filter(([, f]) => f)
      .map(([d]) => d);
    let profiles: PrintProfile[] = [];
    try {
      [profiles, this.#printers] = await Promise.all([api.printProfiles().then((d) => d.print_profiles), api.printers().then((d) => d.printers)]);
    } catch {
      // Without them a line says "no printer set": the jobs, once there, say better.
    }
    // Kept: the failures not dismissed (the newest thousand: a desk that never dismisses its
    // "no printer" notice does not keep every label of the day), and a few more for the screen.
    const kept = this.list.filter((o, i) => i < 10 || (failing(o) && !o.dismissed)).slice(0, KEPT_MOST);
    this.list = [{ labelId: label.id, title, documents, profiles, lines: [], dismissed: false }, ...kept];
    await this.follow();
  }

  /** The outcome of a label, if the desk made it this session. */
  of(labelId: string | undefined): PrintOutcome | undefined {
    return this.list.find((o) => o.labelId === labelId);
  }

  /** Whether a label's failure shows as a notice (the desk's corner notice need not repeat it). */
  noticed(labelId: string): boolean {
    const o = this.of(labelId);
    return !!o && !o.dismissed && failing(o);
  }

  dismiss(labelId: string) {
    const o = this.of(labelId);
    if (o) o.dismissed = true;
  }

  dismissAll(labelIds: string[]) {
    const ids = new Set(labelIds);
    for (const o of this.list) if (ids.has(o.labelId)) o.dismissed = true;
  }

  async retry(labelId: string, job: PrintJob) {
    await api.retryPrintJob(job.id).catch(() => null);
    await this.follow(labelId);
  }

  /** Looks at the print jobs of the labels still on their way (or only of `only`), then again:
   * quickly while a job is queued or sending, every 5 s while a failure shows. */
  private async follow(only?: string) {
    clearTimeout(this.#timer);
    const mine = ++this.#round;
    const open = this.list.filter((o) => o.labelId === only || (!only && mayChange(o)) || !o.lines.length);
    for (const o of open) {
      try {
        const jobs = (await api.printJobsOf(o.labelId)).print_jobs;
        if (mine !== this.#round) return;
        o.lines = documentLines(o.documents, o.profiles, this.#printers, jobs);
      } catch {
        // The next look tries again.
      }
    }
    const onTheirWay = this.list.some(moving);
    // A failed job may end without the operator here: the print worker's retry, a print from History.
    const waiting = this.list.some(mayChange);
    if (onTheirWay || waiting) this.#timer = setTimeout(() => this.follow(), onTheirWay ? 250 : 5000);
  }
}

/** Whether a label's print is still on its way (a job queued or sending). */
const moving = (o: PrintOutcome) => o.lines.some((l) => l.job && (l.job.status === 'queued' || l.job.status === 'printing'));

/** Whether another look at a label's print jobs may show something new: a job on its way, or a
 * failed job shown (the print worker retries it). A document with no printer or no job stays as
 * it is, however often it is looked at: a desk that prints no packing slips, scanning all day, is
 * not asked about every label it made (each look is one request). */
export const mayChange = (o: PrintOutcome) => moving(o) || (!o.dismissed && o.lines.some((l) => l.failed && l.job));

export const printResults = new PrintResults();
