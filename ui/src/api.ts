// The one client of the embedded server. Same origin as the page; the desk's key comes from
// /ui/session (answered to this machine only). Every failure is the service's envelope.

export type Detail = { path: string; info: string };
export class ApiError extends Error {
  constructor(public code: number, message: string, public details: Detail[]) {
    super(message);
  }
}

let key = '';
let env: 'sandbox' | 'live' = 'sandbox';
let session: { keys: Record<string, string>; data_dir: string; log_dir: string } = { keys: {}, data_dir: '', log_dir: '' };

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

/** Saves a stored file (label, manifest, bulk PDF) through the browser's download. */
export async function download(url: string, name: string) {
  const r = await fetch(new URL(url, location.href).pathname, { headers: { 'service-api-key': key } });
  if (!r.ok) throw new Error(`download failed (${r.status})`);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(await r.blob());
  a.download = name;
  a.click();
}

/** The messages of a failure, one line: field paths first. */
export function describe(e: unknown): string {
  if (e instanceof ApiError) {
    const d = e.details.map((x) => (x.path ? `${x.path}: ${x.info}` : x.info)).join('; ');
    return d ? `${e.message} ${d}` : e.message;
  }
  return String(e);
}

export async function call(method: string, path: string, body?: unknown): Promise<any> {
  return send(key, method, path, body);
}

/** Changes the desk's machine-wide setup (printers, print profiles): the service takes those from
 * the live key only, whatever mode the desk is in, so the UI sends the live key of its session. */
export async function callMachineWide(method: string, path: string, body?: unknown): Promise<any> {
  return send(session.keys.live ?? key, method, path, body);
}

async function send(withKey: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(path, {
    method,
    headers: { 'service-api-key': withKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const v = await r.json();
  const code = v.meta?.code;
  // 4713 (rates: some accounts failed) still carries the rates that worked.
  if (code !== 200 && code !== 3001 && code !== 4713) {
    throw new ApiError(code, v.meta?.message ?? 'error', v.meta?.details ?? []);
  }
  return v.data;
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
