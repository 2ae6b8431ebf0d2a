// words-check: no words here (a test's clock)
// Unit tests' stand-in for the browser's timer (timer.ts): nothing runs until the test says time
// has passed, and the test sees what waits and how long for.
import type { Timer } from './timer';

/** Lets the promises settled so far run their callbacks. */
export const settle = () => new Promise<void>((done) => setTimeout(done, 0));

export function fakeTimer() {
  let pending: { id: number; run: () => void; ms: number }[] = [];
  let ids = 0;
  const timer: Timer & { waits: () => number[]; pass: () => Promise<void> } = {
    set: (run, ms) => {
      pending.push({ id: ++ids, run, ms });
      return ids;
    },
    clear: (handle) => {
      pending = pending.filter((p) => p.id !== handle);
    },
    /** How long each pending run waits, in ms. */
    waits: () => pending.map((p) => p.ms),
    /** Time passes until the first pending run: it runs, and what it awaits settles. */
    pass: async () => {
      const first = pending.shift();
      if (!first) throw new Error('nothing waits on the timer');
      first.run();
      await settle();
    },
  };
  return timer;
}

/** A promise the test settles when it chooses (a request answering late). */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
