import { describe, expect, it } from 'vitest';
import { ScalePoll } from './scalePoll.svelte';
import { fakeTimer, settle } from './fakeTimer';
import type { ScaleState, WeightUnit } from './types';

const reading = (status: ScaleState['status'], value?: number, unit: WeightUnit = 'kg'): ScaleState =>
  ({ status, stable: status === 'stable', ...(value !== undefined ? { weight: { value, unit } } : {}) }) as ScaleState;

/** A scale that answers the readings given, one per look (the last one again once they run out). */
function deskScale(readings: (ScaleState | Error)[], autoTake = false) {
  const put: string[] = [];
  const timer = fakeTimer();
  let i = 0;
  const poll = new ScalePoll({
    read: async () => {
      const r = readings[Math.min(i++, readings.length - 1)];
      if (r instanceof Error) throw r;
      return r;
    },
    autoTake: () => autoTake,
    put: (w) => put.push(`${w.value} ${w.unit}`),
    timer,
  });
  return { poll, put, timer };
}

describe('the desk scale', () => {
  it('offers no weight while the parcel settles, then the stable one', async () => {
    const { poll, put } = deskScale([reading('in_motion', 2.4), reading('stable', 2.5)]);
    await poll.poll();
    expect(poll.shown).toBe(true);
    expect(poll.weight).toBeNull();
    poll.take(); // F2 while it settles
    expect(put).toEqual([]);
    await poll.poll();
    expect(poll.weight).toEqual({ value: 2.5, unit: 'kg' });
    poll.take();
    expect(put).toEqual(['2.5 kg']);
  });

  it('never offers an empty scale or a weight below zero', async () => {
    const { poll, put } = deskScale([reading('zero', 0), reading('under_zero', -0.2)]);
    for (let i = 0; i < 2; i++) {
      await poll.poll();
      poll.take();
    }
    expect(put).toEqual([]);
  });

  it('takes each new stable weight by itself when the desk says so, once', async () => {
    const { poll, put } = deskScale([reading('in_motion', 1.9), reading('stable', 2), reading('stable', 2), reading('in_motion', 3), reading('stable', 3.2, 'lb')], true);
    for (let i = 0; i < 5; i++) await poll.poll();
    // The same 2 kg read again is not taken again: a weight typed over it meanwhile stays.
    expect(put).toEqual(['2 kg', '3.2 lb']);
  });

  it('takes nothing by itself when the desk does not say so', async () => {
    const { poll, put } = deskScale([reading('stable', 2)]);
    await poll.poll();
    await poll.poll();
    expect(put).toEqual([]);
  });

  it('takes the same weight again after the scale was gone', async () => {
    const { poll, put } = deskScale([reading('stable', 2), new Error('unplugged'), reading('stable', 2)], true);
    for (let i = 0; i < 3; i++) await poll.poll();
    expect(put).toEqual(['2 kg', '2 kg']);
  });

  it('looks every 100 ms while a scale is set, every 3 s while none is, and stops when told', async () => {
    const { poll, timer } = deskScale([reading('stable', 1), reading('off'), new Error('no answer'), reading('waiting')]);
    const stop = poll.start();
    await settle();
    expect(timer.waits()).toEqual([100]);
    await timer.pass();
    expect(poll.shown).toBe(false); // off: the screen shows no scale
    expect(timer.waits()).toEqual([3000]);
    await timer.pass();
    expect(poll.reading).toBeNull();
    expect(timer.waits()).toEqual([3000]);
    await timer.pass();
    expect(timer.waits()).toEqual([100]);
    stop();
    expect(timer.waits()).toEqual([]);
  });
});
