import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStripeForm } from '../../../test/helpers/stripe-stand-in.js';
import { formatPrice, unitsPerMajor } from './price.js';

test("prices are shown in the currency's own units, zero- and three-decimal currencies included", () => {
  assert.equal(formatPrice(1200, 'eur'), '€12.00');
  assert.equal(formatPrice(999, 'usd'), '$9.99');
  assert.equal(formatPrice(1200, 'jpy'), '¥1,200');
  assert.equal(formatPrice(50_000, 'krw'), '₩50,000');
  assert.equal(formatPrice(1230, 'kwd'), 'KWD\u00a01.230');
  assert.deepEqual(['usd', 'JPY', 'bhd'].map(unitsPerMajor), [100, 1, 1000]);
});

test("the stand-in reads Stripe's bracket form encoding like Stripe does", () => {
  const body = 'mode=payment&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur&metadata[link_id]=abc'
    .replace(/\[/g, '%5B')
    .replace(/\]/g, '%5D');
  assert.deepEqual(parseStripeForm(body), {
    mode: 'payment',
    line_items: [{ quantity: '1', price_data: { currency: 'eur' } }],
    metadata: { link_id: 'abc' },
  });
});
