// The rate of each service of the account beside its name, asked again when the route or weight
// changes: once typing pauses (300 ms), and only the answer to the form as it stands now shows
// (an older request answering late never replaces a newer one's rates).
import type { RateRecord, RatesRequest } from './types';
import { browserTimer, type Timer } from './timer';

export type RateDeps = {
  /** Prices a shipment (POST /v3/rates). */
  rates: (body: RatesRequest) => Promise<RateRecord>;
  timer?: Timer;
};

/** How long the form stays unchanged before its rates are asked. */
export const RATE_PAUSE_MS = 300;

export class RateQuote {
  /** Each service's total charge in words ("6.90 EUR"), by service type; empty while unknown. */
  rates = $state<Record<string, string>>({});
  #deps: RateDeps;
  #timer: Timer;
  #handle: unknown;
  #asked = 0; // the form's latest request: an answer to an earlier one is dropped

  constructor(deps: RateDeps) {
    this.#deps = deps;
    this.#timer = deps.timer ?? browserTimer;
  }

  /** The form's request changed (null: route or weight unknown, no rates). */
  ask(body: RatesRequest | null) {
    this.stop();
    const mine = ++this.#asked;
    if (!body) {
      this.rates = {};
      return;
    }
    this.#handle = this.#timer.set(async () => {
      let r: Record<string, string> = {};
      try {
        for (const x of (await this.#deps.rates(body)).rates) {
          if (x.service_type && x.total_charge) r[x.service_type] = `${x.total_charge.amount.toFixed(2)} ${x.total_charge.currency}`;
        }
      } catch {
        r = {}; // no rates beats wrong ones
      }
      if (mine === this.#asked) this.rates = r;
    }, RATE_PAUSE_MS);
  }

  /** No request pending (the screen closes, or a newer one replaces it). */
  stop() {
    this.#timer.clear(this.#handle);
  }
}
