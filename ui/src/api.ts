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

export async function startSession(want?: 'sandbox' | 'live'): Promise<'sandbox' | 'live'> {
  const r = await fetch('/ui/session');
  const s = await r.json();
  env = want ?? (localStorage.getItem('packdesk.env') as 'sandbox' | 'live') ?? 'sandbox';
  if (env !== 'live' && env !== 'sandbox') env = 'sandbox';
  key = s.data.keys[env];
  localStorage.setItem('packdesk.env', env);
  return env;
}

export function environment() {
  return env;
}

export async function call(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(path, {
    method,
    headers: { 'service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const v = await r.json();
  const code = v.meta?.code;
  if (code !== 200 && code !== 3001) {
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
  return url.split('/').pop() ?? '';
}
