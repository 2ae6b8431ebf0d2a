// The desk scale as the Ship screen reads it: every 100 ms while one is set (a stable weight shows
// within 300 ms of its report), every 3 s while none is. F2 or the button takes the stable weight
// into the parcel; with the desk's "scale_auto_weight" the poll takes each new stable weight by
// itself (a weight the operator typed stays until the scale shows another).
import type { ScaleState, WeightUnit } from './types';
import { weightToTake } from './scale';
import { browserTimer, type Timer } from './timer';

type Weight = { value: number; unit: WeightUnit };

export type ScaleDeps = {
  /** One reading of the scale (GET /desk/scale). */
  read: () => Promise<ScaleState>;
  /** Whether the desk takes each new stable weight by itself (Settings). */
  autoTake: () => boolean;
  /** Puts a taken weight into the parcel. */
  put: (w: Weight) => void;
  timer?: Timer;
};

const said = (w: Weight) => `${w.value} ${w.unit}`;

export class ScalePoll {
  /** The latest reading; null when the scale could not be read. */
  reading = $state<ScaleState | null>(null);
  /** The stable weight above zero the reading offers, or null. */
  weight = $derived(weightToTake(this.reading));
  /** Whether the screen shows the scale at all (one is set). */
  shown = $derived(!!this.reading && this.reading.status !== 'off');
  #lastTaken = '';
  #deps: ScaleDeps;

  constructor(deps: ScaleDeps) {
    this.#deps = deps;
  }

  /** F2 or "Take weight": the stable weight into the parcel; nothing while it is settling. */
  take() {
    const w = this.weight;
    if (!w) return;
    this.#deps.put(w);
    this.#lastTaken = said(w);
  }

  /** One look at the scale; the milliseconds until the next. */
  async poll(): Promise<number> {
    this.reading = await this.#deps.read().catch(() => null);
    const w = this.weight;
    if (this.#deps.autoTake() && w && said(w) !== this.#lastTaken) this.take();
    // No scale: the same weight put on again later is a new parcel's.
    if (!this.shown) this.#lastTaken = '';
    return this.shown ? 100 : 3000;
  }

  /** Reads the scale until the returned stop is called. */
  start(): () => void {
    const timer = this.#deps.timer ?? browserTimer;
    let handle: unknown;
    let stopped = false;
    const loop = async () => {
      const next = await this.poll();
      if (!stopped) handle = timer.set(loop, next);
    };
    loop();
    return () => {
      stopped = true;
      timer.clear(handle);
    };
  }
}
