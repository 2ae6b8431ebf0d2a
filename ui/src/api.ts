// The one client of the embedded server. Same origin as the page. The page never holds an API
// key: it works with a session token from /ui/session (sign-in off: the desk's own session) or
// /ui/sign-in (an operator's badge and PIN), sent as `Authorization: Bearer`, and kept in the
// tab's sessionStorage so a reload stays signed in. Every failure is the service's envelope.

import type * as T from './types';
import type { components, paths } from './generated/openapi';
import type { Detail } from './types';
import { errorWords } from './problems';
import { t } from './i18n/index.svelte';

export type { Detail };
export class ApiError extends Error {
  constructor(public code: number, message: string, public details: Detail[]) {
    super(message);
  }
}

type Env = 'sandbox' | 'live';
export type Operator = components['schemas']['OperatorRef'];
type SignedIn = components['schemas']['SignedIn'];

// The tab's session survives a reload (read when the page starts its session).
let token = '';
let env: Env = 'sandbox';
let operator: Operator | null = null;
let desk = {
  sign_in_required: false,
  idle_sign_out_minutes: 15,
  data_dir: '',
  log_dir: '',
  desktop_app: false,
  vault_key: null as T.VaultKeyPlace | null,
  /** The desk's language setting (an operator's own comes with their session). */
  language: null as string | null,
};

/** Called when the session ends under the page (signed out elsewhere, idle, the desk restarted). */
let onSessionEnded: () => void = () => {};
export function whenSessionEnds(f: () => void) {
  onSessionEnded = f;
}

function keep(s: SignedIn) {
  token = s.token;
  env = s.environment as Env;
  operator = s.operator;
  sessionStorage.setItem('packdesk.token', token);
  localStorage.setItem('packdesk.env', env);
}

function forget() {
  token = '';
  operator = null;
  sessionStorage.removeItem('packdesk.token');
}

/** The environment a new session starts in: the one this desk used last. */
function remembered(): Env {
  const e = localStorage.getItem('packdesk.env');
  return e === 'live' ? 'live' : 'sandbox';
}

/** Opens the page's session: answers whether it has one (else an operator must sign in). */
export async function startSession(): Promise<boolean> {
  if (!token) token = sessionStorage.getItem('packdesk.token') ?? '';
  const r = await fetch(`/ui/session?environment=${remembered()}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const v = await r.json();
  if (v.meta?.code !== 200) throw new ApiError(v.meta?.code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  const { session, ...rest } = v.data;
  desk = rest;
  if (session) keep(session);
  else forget();
  return !!session;
}

/** Signs an operator in by the badge's code (and PIN). */
export async function signIn(code: string, pin?: string): Promise<Operator> {
  const r = await fetch(`/ui/sign-in?environment=${remembered()}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, pin: pin || undefined }),
  });
  const v = await r.json();
  if (v.meta?.code !== 200) throw new ApiError(v.meta?.code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  keep(v.data);
  return v.data.operator;
}

/** A badge scanned while someone works (into the scan field, or with no field focused): its
 * operator takes over the page, and the session before ends. `'pin'`: the operator has a PIN,
 * which the sign-in screen asks; null: no operator has this code (nothing changes). Throws when
 * the badge is locked after wrong PINs. */
export async function switchByBadge(code: string): Promise<Operator | 'pin' | null> {
  const before = token;
  const r = await fetch(`/ui/sign-in?environment=${env}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const v = await r.json();
  if (v.meta?.code !== 200) {
    const details: { path: string; info: string }[] = v.meta?.details ?? [];
    // A badge locked after wrong PINs: said as it is (the operator at work stays).
    const locked = details.find((d) => d.path === 'pin' && /locked/.test(d.info));
    if (locked) throw new ApiError(v.meta.code, v.meta.message ?? 'error', details);
    return details.some((d) => d.path === 'pin') ? 'pin' : null;
  }
  keep(v.data);
  if (before && before !== token) await fetch('/ui/sign-out', { method: 'POST', headers: { authorization: `Bearer ${before}` } }).catch(() => {});
  return v.data.operator;
}

/** What the page does with a scanned badge (App's: switch operator): the name of who took over
 * ('' while their PIN is asked), or null when the code is no badge. */
let onBadge: (code: string) => Promise<string | null> = async () => null;
export function whenBadgeScanned(f: (code: string) => Promise<string | null>) {
  onBadge = f;
}
export function badgeScanned(code: string): Promise<string | null> {
  return onBadge(code);
}

/** "Switch operator" asked from a screen (the command barcode): App's sign-out and sign-in. */
let onSwitchOperator: () => Promise<void> = async () => {};
export function whenSwitchOperator(f: () => Promise<void>) {
  onSwitchOperator = f;
}
export function switchOperatorNow(): Promise<void> {
  return onSwitchOperator();
}

/** Ends this page's session (Switch operator, idle time). */
export async function signOut() {
  if (token) await fetch('/ui/sign-out', { method: 'POST', headers: { authorization: `Bearer ${token}` } }).catch(() => {});
  forget();
}

/** Switches the session between sandbox and live (a supervisor's action). */
export async function switchEnvironment(to: Env): Promise<Env> {
  const r = await fetch('/ui/environment', {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ environment: to }),
  });
  const v = await r.json();
  if (v.meta?.code !== 200) throw new ApiError(v.meta?.code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  keep(v.data);
  return env;
}

export function environment() {
  return env;
}

const ranks = { packer: 0, supervisor: 1, admin: 2 } as const;
/** Whether the operator at the page has `role` or a higher one (the server decides; the page
 * only hides what would be refused). */
export function may(role: keyof typeof ranks): boolean {
  return !!operator && ranks[operator.role] >= ranks[role];
}

/** Who works at the page now. */
export function currentOperator() {
  return operator;
}

/** The desk's session facts: whether operators sign in, the idle time, the data folder (Settings). */
/** The desk's language setting as it was just saved (the next screens start in it). */
export function deskLanguageChanged(language: string | null) {
  desk.language = language;
}

export function sessionInfo() {
  return desk;
}

/** Replaces an environment's key (an admin's action): the new key, shown this once. */
export async function rotateKey(which: Env): Promise<string> {
  const r = await fetch(`/ui/keys/${which}/rotate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const v = await r.json();
  if (v.meta?.code !== 200) throw new ApiError(v.meta?.code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  return v.data.key;
}

const authorization = () => ({ authorization: `Bearer ${token}` });

/** Saves a stored file (label, manifest, bulk PDF) or an export through the browser's download. */
export async function download(url: string, name: string) {
  const u = new URL(url, location.href);
  const r = await fetch(u.pathname + u.search, { headers: authorization() });
  if (!r.ok) throw new Error(t(r.status === 404 ? 'api.downloadGone' : 'api.downloadFailed', { name }));
  const a = document.createElement('a');
  a.href = URL.createObjectURL(await r.blob());
  a.download = name;
  a.click();
}

/** A failure in the operator's words, one line: each field's problem once, by the field's label
 * (problems.ts); no paths, no codes. `shown`: paths the screen shows beside their field already,
 * left out of the line. */
export function describe(e: unknown, shown?: (path: string) => boolean): string {
  return errorWords(e, shown);
}

// ----- The typed client: paths, methods, bodies, queries and answers come from the OpenAPI
// document (`paths` of generated/openapi.d.ts, made from docs/openapi.json, made from the server's
// table of routes): a route, method, parameter or body the server does not have fails the check.

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type Path = keyof paths;
/** The methods the document gives a path. */
type MethodOf<P extends Path> = { [M in Method]-?: [paths[P][M]] extends [undefined] ? never : M }[Method];
type Op<P extends Path, M extends MethodOf<P>> = NonNullable<paths[P][M]>;
/** `data` of a success (the document's `anyOf` with the `{}` of a failure, without the latter). */
type Data<O> = O extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } }
  ? Exclude<D, components['schemas']['NoData']>
  : unknown;
type Params<O, K extends 'path' | 'query'> = O extends { parameters: { [k in K]?: infer X } } ? X : never;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** A query's values as the UI has them (the document says strings; numbers are written out). */
type QueryOf<O> = { [K in keyof NonNullable<Params<O, 'query'>>]?: string | number | boolean | undefined };
type HasPath<O> = [Params<O, 'path'>] extends [undefined | never] ? false : true;
type Args<O> = (HasPath<O> extends true ? { path: Params<O, 'path'> } : { path?: never }) & {
  query?: QueryOf<O>;
  body?: BodyOf<O>;
};
/** The arguments after the path: required when the path has parameters. */
type Rest<O> = HasPath<O> extends true ? [args: Args<O>] : [args?: Args<O>];

/** The URL of a route: its `{params}` filled in, and `?query` when a query is given. */
function urlOf(path: string, params?: Record<string, string | number>, q?: Record<string, string | number | boolean | undefined>): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params?.[name] ?? '')));
  return q === undefined ? filled : `${filled}?${query(q)}`;
}

/** One route of the document, in the page's session (its operator's role decides what it may). */
function call<P extends Path, M extends MethodOf<P>>(method: M, path: P, ...[args]: Rest<Op<P, M>>): Promise<Data<Op<P, M>>> {
  const a = (args ?? {}) as { path?: Record<string, string>; query?: Record<string, string | number | boolean | undefined>; body?: unknown };
  return send(method.toUpperCase(), urlOf(path, a.path, a.query), a.body);
}

const query = (q: Record<string, string | number | boolean | undefined>) =>
  new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)])).toString();

type ListQuery = Record<string, string | number | undefined>;

/** Every route the desk uses, once: its request and answer types come from the document. */
export const api = {
  carriers: () => call('get', '/desk/carriers'),
  countries: () => call('get', '/desk/countries'),
  accounts: () => call('get', '/v3/shipper-accounts', { query: { limit: 200 } }),
  createAccount: (body: T.ShipperAccountCreate) => call('post', '/v3/shipper-accounts', { body }),
  updateAccount: (id: string, body: T.ShipperAccountSettingsUpdate) => call('put', '/v3/shipper-accounts/{id}', { path: { id }, body }),
  mergeCredentials: (id: string, body: T.ShipperAccountCredentialsUpdate) =>
    call('patch', '/v3/shipper-accounts/{id}/credentials', { path: { id }, body }),
  labels: (q: ListQuery) => call('get', '/v3/labels', { query: q }),
  createLabel: (body: T.LabelRequest) => call('post', '/v3/labels', { body }),
  cancelLabel: (labelId: string) => call('post', '/v3/cancel-labels', { body: { label: { id: labelId } } }),
  rates: (body: T.RatesRequest) => call('post', '/v3/rates', { body }),
  validateAddress: (address: T.Address) => call('post', '/v3/address-validations', { body: { address } }),
  createBulkDownload: (labelIds: string[]) =>
    call('post', '/v3/bulk-downloads', { body: { async: true, labels: labelIds.map((id) => ({ id })) } }),
  bulkDownload: (id: string) => call('get', '/v3/bulk-downloads/{id}', { path: { id } }),
  print: (body: T.PrintRequest) => call('post', '/desk/print', { body }),
  printJobsOf: (recordId: string) =>
    call('get', '/desk/print-jobs', { query: { record_id: recordId, created_at_min: '2000-01-01' } }),
  retryPrintJob: (id: string) => call('post', '/desk/print-jobs/{id}/retry', { path: { id }, body: {} }),
  failedPrintJobs: (since: string) =>
    call('get', '/desk/print-jobs', { query: { status: 'failed', created_at_min: since, limit: 20 } }),
  printers: () => call('get', '/desk/printers'),
  printerStatus: (id: string) => call('get', '/desk/printers/{id}/status', { path: { id } }),
  systemPrinters: () => call('get', '/desk/system-printers'),
  addPrinter: (body: T.PrinterRequest) => call('post', '/desk/printers', { body }),
  deletePrinter: (id: string) => call('delete', '/desk/printers/{id}', { path: { id } }),
  testPage: (printerId: string) => call('post', '/desk/printers/{id}/test-page', { path: { id: printerId }, body: {} }),
  printProfiles: () => call('get', '/desk/print-profiles'),
  setPrintProfile: (documentType: string, body: T.PrintProfileRequest) =>
    call('put', '/desk/print-profiles/{document_type}', { path: { document_type: documentType }, body }),
  deletePrintProfile: (documentType: string) =>
    call('delete', '/desk/print-profiles/{document_type}', { path: { document_type: documentType } }),
  webhook: () => call('get', '/desk/webhook'),
  setWebhook: (url: string, enabled: boolean) => call('put', '/desk/webhook', { body: { url, enabled } }),
  webhookDeliveries: () => call('get', '/desk/webhook-deliveries', { query: { limit: 50, created_at_min: '2000-01-01' } }),
  resendDelivery: (id: string) => call('post', '/desk/webhook-deliveries/{id}/resend', { path: { id } }),
  today: (days: number) =>
    call('get', '/desk/today', { query: { utc_offset_minutes: -new Date().getTimezoneOffset(), days } }),
  // Supervisors and admins; the same query as CSV: download(`/desk/reports/shipments.csv?…`).
  shipmentsReport: (from: string, to: string, groupBy: T.ReportGroup) =>
    call('get', '/desk/reports/shipments', { query: { from, to, group_by: groupBy } }),
  endOfDay: () => call('get', '/desk/end-of-day'),
  history: (q: ListQuery) => call('get', '/desk/history', { query: q }),
  testTransport: (accountId: string) =>
    call('post', '/desk/shipper-accounts/{id}/test-transport', { path: { id: accountId } }),
  testConnection: (accountId: string) =>
    call('post', '/desk/shipper-accounts/{id}/test-connection', { path: { id: accountId } }),
  transmitManifest: (id: string) => call('post', '/desk/manifests/{id}/transmit', { path: { id } }),
  shipDate: (accountId: string) => call('get', '/desk/shipper-accounts/{id}/ship-date', { path: { id: accountId } }),
  orders: (q: ListQuery) => call('get', '/desk/orders', { query: q }),
  order: (id: string) => call('get', '/desk/orders/{id}', { path: { id } }),
  saveOrder: (body: T.OrderRequest) => call('post', '/desk/orders', { body }),
  cancelOrder: (id: string) => call('delete', '/desk/orders/{id}', { path: { id } }),
  shipOrder: (id: string, body: T.ShipOrderRequest) => call('post', '/desk/orders/{id}/ship', { path: { id }, body }),
  packing: (id: string) => call('get', '/desk/orders/{id}/pack', { path: { id } }),
  pack: (id: string, body: T.PackRequest) => call('post', '/desk/orders/{id}/pack', { path: { id }, body }),
  restartPacking: (id: string) => call('delete', '/desk/orders/{id}/pack', { path: { id } }),
  returnLabel: (labelId: string) => call('post', '/desk/labels/{id}/return-label', { path: { id: labelId } }),
  returnLookup: (code: string) => call('get', '/desk/returns/lookup', { query: { code } }),
  recordReturn: (body: T.ReturnRequest) => call('post', '/desk/returns', { body }),
  returns: () => call('get', '/desk/returns'),
  shipOrders: (orderIds: string[]) => call('post', '/desk/orders/ship', { body: { order_ids: orderIds } }),
  batch: (id: string) => call('get', '/desk/batches/{id}', { path: { id } }),
  importOrders: (csv: Blob, dryRun: boolean, mapping?: string) =>
    sendBody<Data<Op<'/desk/orders/import', 'post'>>>(
      'POST',
      urlOf('/desk/orders/import' satisfies Path, undefined, { dry_run: String(dryRun), mapping } satisfies QueryOf<Op<'/desk/orders/import', 'post'>>),
      'text/csv',
      csv,
    ),
  setImportMapping: (name: string, body: T.ImportMapping) =>
    call('put', '/desk/import-mappings/{name}', { path: { name }, body }),
  presets: () => call('get', '/desk/presets'),
  createPreset: (body: T.PresetRequest) => call('post', '/desk/presets', { body }),
  updatePreset: (id: string, body: T.PresetRequest) => call('put', '/desk/presets/{id}', { path: { id }, body }),
  deletePreset: (id: string) => call('delete', '/desk/presets/{id}', { path: { id } }),
  rules: () => call('get', '/desk/rules'),
  setRules: (body: T.Rules) => call('put', '/desk/rules', { body }),
  settings: () => call('get', '/desk/settings'),
  setSettings: (body: T.DeskSettings) => call('put', '/desk/settings', { body }),
  // The join code in it is answered to an admin only.
  database: () => call('get', '/desk/database'),
  setDatabase: (body: T.DatabaseRequest) => call('put', '/desk/database', { body }),
  restartForDatabase: () => call('post', '/desk/database/restart'),
  scale: () => call('get', '/desk/scale'),
  setScale: (device: string | null) => call('put', '/desk/scale', { body: { device } }),
  deskStatus: () => call('get', '/desk/status'),
  https: () => call('get', '/desk/https'),
  backups: () => call('get', '/desk/backups'),
  setPrinting: (paused: boolean) => call('put', '/desk/printing', { body: { paused } }),
  update: () => call('get', '/desk/update'),
  updateStep: (step: 'check' | 'download' | 'install') => call('post', `/desk/update/${step}`),
  operators: () => call('get', '/desk/operators'),
  addOperator: (body: T.OperatorRequest) => call('post', '/desk/operators', { body }),
  updateOperator: (id: string, body: T.OperatorRequest) => call('put', '/desk/operators/{id}', { path: { id }, body }),
  audit: (q: ListQuery) => call('get', '/desk/audit', { query: q }),
  apiKeys: () => call('get', '/desk/api-keys'),
  addApiKey: (body: T.ApiKeyRequest) => call('post', '/desk/api-keys', { body }),
  revokeApiKey: (id: string) => call('delete', '/desk/api-keys/{id}', { path: { id } }),
  closeOut: (shipperAccountIds?: string[]) =>
    call('post', '/desk/close-out', { body: shipperAccountIds ? { shipper_account_ids: shipperAccountIds } : {} }),
};

async function send<R>(method: string, path: string, body?: unknown): Promise<R> {
  return body === undefined ? sendBody<R>(method, path) : sendBody<R>(method, path, 'application/json', JSON.stringify(body));
}

/** A call with a body of any type (a CSV file, JSON text); the answer is the envelope's data. */
async function sendBody<R>(method: string, path: string, contentType?: string, body?: BodyInit): Promise<R> {
  const sentWith = token;
  const r = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${sentWith}`, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });
  const v = await r.json();
  const code: number = v.meta?.code;
  // The session ended under the page (signed out, idle, the desk restarted): start again. A
  // refusal of a call made before the page had its session, or with one it has left, is not that.
  // (HTTP 401 itself: an upstream label service's refused key comes as meta 401 in a 200.)
  if (r.status === 401 && sentWith && sentWith === token) {
    forget();
    onSessionEnded();
  }
  // 4713 (rates: some accounts failed) still carries the rates that worked.
  if (code !== 200 && code !== 3001 && code !== 4713) {
    throw new ApiError(code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  }
  return v.data as R;
}

/** A stored document's preview as an object URL (the request needs the key header). */
export async function previewUrl(fileId: string, page = 1): Promise<string> {
  const url = urlOf('/desk/files/{id}/preview.png' satisfies Path, { id: fileId }, { page } satisfies QueryOf<Op<'/desk/files/{id}/preview.png', 'get'>>);
  const r = await fetch(url, { headers: authorization() });
  if (!r.ok || r.headers.get('content-type') !== 'image/png') throw new Error(t('api.noPreview'));
  return URL.createObjectURL(await r.blob());
}

export function fileId(url: string): string {
  return new URL(url, location.href).pathname.split('/').pop() ?? '';
}
