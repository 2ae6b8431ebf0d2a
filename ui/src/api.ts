// The one client of the embedded server. Same origin as the page; the desk's key comes from
// /ui/session (answered to this machine only). Every failure is the service's envelope.

import type * as T from './types';
import type { Detail } from './types';
import { errorWords } from './problems';

export type { Detail };
export class ApiError extends Error {
  constructor(public code: number, message: string, public details: Detail[]) {
    super(message);
  }
}

let key = '';
let env: 'sandbox' | 'live' = 'sandbox';
let session: {
  keys: Record<string, string>;
  data_dir: string;
  log_dir: string;
  desktop_app: boolean;
  vault_key: T.VaultKeyPlace | null;
} = {
  keys: {},
  data_dir: '',
  log_dir: '',
  desktop_app: false,
  vault_key: null,
};

export async function startSession(want?: 'sandbox' | 'live'): Promise<'sandbox' | 'live'> {
  const r = await fetch('/ui/session');
  const s = await r.json();
  session = s.data;
  env = want ?? (localStorage.getItem('packdesk.env') as 'sandbox' | 'live') ?? 'sandbox';
  if (env !== 'live' && env !== 'sandbox') env = 'sandbox';
  key = s.data.keys[env];
  localStorage.setItem('packdesk.env', env);
  return env;
}

export function environment() {
  return env;
}

/** The keys and data folder this machine's session was given (Settings shows them). */
export function sessionInfo() {
  return session;
}

/** Replaces an environment's key; the desk goes on with the new one. */
export async function rotateKey(which: 'sandbox' | 'live'): Promise<string> {
  const r = await fetch(`/ui/keys/${which}/rotate`, { method: 'POST', headers: { 'service-api-key': session.keys[which] } });
  const v = await r.json();
  if (v.meta?.code !== 200) throw new ApiError(v.meta?.code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  session.keys[which] = v.data.key;
  if (which === env) key = v.data.key;
  return v.data.key;
}

/** Saves a stored file (label, manifest, bulk PDF) or an export through the browser's download. */
export async function download(url: string, name: string) {
  const u = new URL(url, location.href);
  const r = await fetch(u.pathname + u.search, { headers: { 'service-api-key': key } });
  if (!r.ok) throw new Error(`${name} could not be downloaded: ${r.status === 404 ? 'the file is not on this desk any more' : 'try again'}`);
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

function call<R>(method: string, path: string, body?: unknown): Promise<R> {
  return send<R>(key, method, path, body);
}

/** Changes the desk's machine-wide setup (printers, print profiles): the service takes those from
 * the live key only, whatever mode the desk is in, so the UI sends the live key of its session. */
function callMachineWide<R>(method: string, path: string, body?: unknown): Promise<R> {
  return send<R>(session.keys.live ?? key, method, path, body);
}

const query = (q: Record<string, string | number | undefined>) =>
  new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)])).toString();

/** Every route the desk uses, once, with its request and answer types. */
export const api = {
  carriers: () => call<T.Registry>('GET', '/desk/carriers'),
  countries: () => call<T.CountryList>('GET', '/desk/countries'),
  accounts: () => call<T.ShipperAccountList>('GET', '/v3/shipper-accounts?limit=200'),
  createAccount: (body: T.ShipperAccountCreate) => call<T.ShipperAccount>('POST', '/v3/shipper-accounts', body),
  updateAccount: (id: string, body: T.ShipperAccountSettingsUpdate) => call<T.ShipperAccount>('PUT', `/v3/shipper-accounts/${id}`, body),
  mergeCredentials: (id: string, body: T.ShipperAccountCredentialsUpdate) =>
    call<T.ShipperAccount>('PATCH', `/v3/shipper-accounts/${id}/credentials`, body),
  labels: (q: Record<string, string | number | undefined>) => call<T.LabelList>('GET', `/v3/labels?${query(q)}`),
  createLabel: (body: T.LabelRequest) => call<T.Label>('POST', '/v3/labels', body),
  cancelLabel: (labelId: string) => call<T.CancelLabel>('POST', '/v3/cancel-labels', { label: { id: labelId } }),
  rates: (body: T.RatesRequest) => call<T.RateRecord>('POST', '/v3/rates', body),
  validateAddress: (address: T.Address) => call<T.AddressValidation>('POST', '/v3/address-validations', { address }),
  createBulkDownload: (labelIds: string[]) =>
    call<T.BulkDownload>('POST', '/v3/bulk-downloads', { async: true, labels: labelIds.map((id) => ({ id })) }),
  bulkDownload: (id: string) => call<T.BulkDownload>('GET', `/v3/bulk-downloads/${id}`),
  print: (body: T.PrintRequest) => call<T.PrintJob>('POST', '/desk/print', body),
  printJobsOf: (recordId: string) =>
    call<T.PrintJobList>('GET', `/desk/print-jobs?${query({ record_id: recordId, created_at_min: '2000-01-01' })}`),
  retryPrintJob: (id: string) => call<T.PrintJob>('POST', `/desk/print-jobs/${id}/retry`, {}),
  failedPrintJobs: (since: string) =>
    call<T.PrintJobList>('GET', `/desk/print-jobs?${query({ status: 'failed', created_at_min: since, limit: 20 })}`),
  printers: () => call<T.PrinterList>('GET', '/desk/printers'),
  printerStatus: (id: string) => call<T.PrinterStatus>('GET', `/desk/printers/${id}/status`),
  systemPrinters: () => call<T.SystemPrinterList>('GET', '/desk/system-printers'),
  addPrinter: (body: T.PrinterRequest) => callMachineWide<T.Printer>('POST', '/desk/printers', body),
  deletePrinter: (id: string) => callMachineWide<unknown>('DELETE', `/desk/printers/${id}`),
  testPage: (printerId: string) => call<T.PrintJob>('POST', `/desk/printers/${printerId}/test-page`, {}),
  printProfiles: () => call<T.PrintProfileList>('GET', '/desk/print-profiles'),
  setPrintProfile: (documentType: string, body: T.PrintProfileRequest) =>
    callMachineWide<T.PrintProfile>('PUT', `/desk/print-profiles/${documentType}`, body),
  deletePrintProfile: (documentType: string) => callMachineWide<unknown>('DELETE', `/desk/print-profiles/${documentType}`),
  webhook: () => call<T.WebhookSetting>('GET', '/desk/webhook'),
  setWebhook: (url: string, enabled: boolean) => call<T.WebhookSetting>('PUT', '/desk/webhook', { url, enabled }),
  webhookDeliveries: () =>
    call<T.WebhookDeliveryList>('GET', `/desk/webhook-deliveries?${query({ limit: 50, created_at_min: '2000-01-01' })}`),
  resendDelivery: (id: string) => call<T.WebhookDelivery>('POST', `/desk/webhook-deliveries/${id}/resend`),
  today: (days: number) =>
    call<T.Today>('GET', `/desk/today?${query({ utc_offset_minutes: -new Date().getTimezoneOffset(), days })}`),
  endOfDay: () => call<T.EndOfDay>('GET', '/desk/end-of-day'),
  history: (q: Record<string, string | number | undefined>) => call<T.History>('GET', `/desk/history?${query(q)}`),
  shipDate: (accountId: string) => call<T.ShipDate>('GET', `/desk/shipper-accounts/${accountId}/ship-date`),
  orders: (q: Record<string, string | number | undefined>) => call<T.OrderList>('GET', `/desk/orders?${query(q)}`),
  order: (id: string) => call<T.Order>('GET', `/desk/orders/${id}`),
  saveOrder: (body: T.OrderRequest) => call<T.OrdersSaved>('POST', '/desk/orders', body),
  cancelOrder: (id: string) => call<T.Order>('DELETE', `/desk/orders/${id}`),
  shipOrder: (id: string, body: T.ShipOrderRequest) => call<T.ShippedOrder>('POST', `/desk/orders/${id}/ship`, body),
  shipOrders: (orderIds: string[]) => call<T.ShipBatch>('POST', '/desk/orders/ship', { order_ids: orderIds }),
  batch: (id: string) => call<T.ShipBatch>('GET', `/desk/batches/${id}`),
  importOrders: (csv: Blob, dryRun: boolean, mapping?: string) =>
    sendBody<T.ImportResult>(key, 'POST', `/desk/orders/import?${query({ dry_run: String(dryRun), mapping })}`, 'text/csv', csv),
  setImportMapping: (name: string, body: T.ImportMapping) =>
    callMachineWide<T.ImportMapping>('PUT', `/desk/import-mappings/${encodeURIComponent(name)}`, body),
  presets: () => call<T.PresetList>('GET', '/desk/presets'),
  createPreset: (body: T.PresetRequest) => call<T.Preset>('POST', '/desk/presets', body),
  updatePreset: (id: string, body: T.PresetRequest) => call<T.Preset>('PUT', `/desk/presets/${id}`, body),
  deletePreset: (id: string) => call<unknown>('DELETE', `/desk/presets/${id}`),
  rules: () => call<T.Rules>('GET', '/desk/rules'),
  setRules: (body: T.Rules) => call<T.Rules>('PUT', '/desk/rules', body),
  settings: () => call<T.DeskSettings>('GET', '/desk/settings'),
  setSettings: (body: T.DeskSettings) => callMachineWide<T.DeskSettings>('PUT', '/desk/settings', body),
  // The join code in it is answered to the live key only.
  database: () => callMachineWide<T.DatabaseSetting>('GET', '/desk/database'),
  setDatabase: (body: T.DatabaseRequest) => callMachineWide<T.DatabaseSetting>('PUT', '/desk/database', body),
  restartForDatabase: () => callMachineWide<T.DatabaseSetting>('POST', '/desk/database/restart'),
  scale: () => call<T.ScaleState>('GET', '/desk/scale'),
  setScale: (device: string | null) => callMachineWide<T.ScaleState>('PUT', '/desk/scale', { device }),
  deskStatus: () => call<T.DeskStatus>('GET', '/desk/status'),
  setPrinting: (paused: boolean) => callMachineWide<T.DeskStatus>('PUT', '/desk/printing', { paused }),
  update: () => call<T.UpdateStatus>('GET', '/desk/update'),
  updateStep: (step: 'check' | 'download' | 'install') => callMachineWide<T.UpdateStatus>('POST', `/desk/update/${step}`),
  closeOut: (shipperAccountIds?: string[]) =>
    call<T.CloseOut>('POST', '/desk/close-out', shipperAccountIds ? { shipper_account_ids: shipperAccountIds } : {}),
};

async function send<R>(withKey: string, method: string, path: string, body?: unknown): Promise<R> {
  return body === undefined
    ? sendBody<R>(withKey, method, path)
    : sendBody<R>(withKey, method, path, 'application/json', JSON.stringify(body));
}

/** A call with a body of any type (a CSV file, JSON text); the answer is the envelope's data. */
async function sendBody<R>(withKey: string, method: string, path: string, contentType?: string, body?: BodyInit): Promise<R> {
  const r = await fetch(path, {
    method,
    headers: { 'service-api-key': withKey, ...(contentType ? { 'content-type': contentType } : {}) },
    body,
  });
  const v = await r.json();
  const code: number = v.meta?.code;
  // 4713 (rates: some accounts failed) still carries the rates that worked.
  if (code !== 200 && code !== 3001 && code !== 4713) {
    throw new ApiError(code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  }
  return v.data as R;
}

/** A stored document's preview as an object URL (the request needs the key header). */
export async function previewUrl(fileId: string, page = 1): Promise<string> {
  const r = await fetch(`/desk/files/${fileId}/preview.png?page=${page}`, { headers: { 'service-api-key': key } });
  if (!r.ok || r.headers.get('content-type') !== 'image/png') throw new Error('no preview');
  return URL.createObjectURL(await r.blob());
}

export function fileId(url: string): string {
  return new URL(url, location.href).pathname.split('/').pop() ?? '';
}
