import { describe, expect, it } from 'vitest';
import { RateQuote, RATE_PAUSE_MS } from './rateQuote.svelte';
import { deferred, fakeTimer, settle } from './fakeTimer';
import type { RateRecord, RatesRequest } from './types';

/** What the form asks rates for: a parcel of `kg` to Berlin. */
const request = (kg: number) =>
  ({
    shipper_accounts: [{ id: 'acc' }],
    shipment: { ship_from: { country: 'DEU' }, ship_to: { country: 'DEU', postal_code: '10115' }, parcels: [{ weight: { value: kg, unit: 'kg' } }] },
  }) as RatesRequest;

const answer = (amount: number): RateRecord =>
  ({ rates: [{ service_type: 'dhl_paket', total_charge: { amount, currency: 'EUR' } }, { service_type: 'no_price' }] }) as RateRecord;

/** A rate service whose answers the test gives, one per request, in any order. */
function rateService() {
  const asked: { kg: number; answer: ReturnType<typeof deferred<RateRecord>> }[] = [];
  const timer = fakeTimer();
  const quote = new RateQuote({
    rates: (body) => {
      const a = deferred<RateRecord>();
      asked.push({ kg: body.shipment.parcels[0].weight.value, answer: a });
      return a.promise;
    },
    timer,
  });
  return { quote, asked, timer };
}

describe('the rates beside the services', () => {
  it('asks once typing pauses, for the form as it stands then', async () => {
    const { quote, asked, timer } = rateService();
    quote.ask(request(1));
    quote.ask(request(12));
    quote.ask(request(1.5)); // "1", "12", back to "1.5"
    expect(asked).toEqual([]);
    expect(timer.waits()).toEqual([RATE_PAUSE_MS]);
    await timer.pass();
    expect(asked.map((a) => a.kg)).toEqual([1.5]);
    asked[0].answer.resolve(answer(6.9));
    await settle();
    // Services without a price show none.
    expect(quote.rates).toEqual({ dhl_paket: '6.90 EUR' });
  });

  it('shows the newer request’s rates when an older answer arrives late', async () => {
    const { quote, asked, timer } = rateService();
    quote.ask(request(1));
    await timer.pass();
    quote.ask(request(20));
    await timer.pass();
    asked[1].answer.resolve(answer(24.5));
    await settle();
    asked[0].answer.resolve(answer(6.9));
    await settle();
    expect(quote.rates).toEqual({ dhl_paket: '24.50 EUR' });
  });

  it('shows no rates once the route or weight is unknown, even when an answer was on its way', async () => {
    const { quote, asked, timer } = rateService();
    quote.ask(request(1));
    await timer.pass();
    asked[0].answer.resolve(answer(6.9));
    await settle();
    quote.ask(request(2));
    await timer.pass();
    quote.ask(null); // the weight emptied
    expect(quote.rates).toEqual({});
    expect(timer.waits()).toEqual([]);
    asked[1].answer.resolve(answer(7.9));
    await settle();
    expect(quote.rates).toEqual({});
  });

  it('shows no rates when the carrier cannot price the parcel', async () => {
    const { quote, asked, timer } = rateService();
    quote.ask(request(1));
    await timer.pass();
    asked[0].answer.resolve(answer(6.9));
    await settle();
    quote.ask(request(90));
    await timer.pass();
    asked[1].answer.reject(new Error('too heavy'));
    await settle();
    expect(quote.rates).toEqual({});
  });

  it('asks nothing once the screen stops it', async () => {
    const { quote, asked, timer } = rateService();
    quote.ask(request(1));
    quote.stop();
    expect(timer.waits()).toEqual([]);
    expect(asked).toEqual([]);
  });
});
