import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import { SavedSetting, type TryOutcome } from './savedSetting.svelte';

const refused = () =>
  new ApiError(4104, 'The request was invalid or cannot be otherwise served.', [
    { path: 'settings.manifest_transport.host', info: 'required' } as never,
  ]);

describe('a setting saved, then tried out', () => {
  it('saves and says so', async () => {
    let writes = 0;
    const form = new SavedSetting(async () => void writes++, async () => ({ ok: true, message: '' }));
    expect(await form.save()).toBe(true);
    expect(writes).toBe(1);
    expect(form.message).toBe('Saved.');
    expect(form.errors).toEqual({});
  });

  it('shows a refusal beside its field and does not try what was not saved', async () => {
    let tries = 0;
    const form = new SavedSetting(
      async () => {
        throw refused();
      },
      async () => (tries++, { ok: true, message: '' }),
    );
    await form.test();
    expect(tries).toBe(0);
    expect(Object.keys(form.errors)).toEqual(['settings.manifest_transport.host']);
    expect(form.errors['settings.manifest_transport.host']).not.toBe('');
    expect(form.result).toBeNull();
  });

  it('tries what is saved and shows the outcome; a new save clears the last one', async () => {
    const outcome: TryOutcome = { ok: false, message: 'connection refused' };
    const form = new SavedSetting(async () => {}, async () => outcome);
    await form.test();
    expect(form.result).toEqual(outcome);
    expect(form.message).toBe('');
    await form.save();
    expect(form.result).toBeNull();
  });
});
