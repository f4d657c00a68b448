/**
 * The gift site's form over HTTP (the browser layer shows the pages): the claim goes to the country
 * chosen in "Deliver to"; "Show gifts for this country" only redirects to that country's page; a
 * claim ends on its confirmation (gift, options, country, never the address), which only the claim's
 * own redirect shows; hostile form values are a 400 form or a redirect, never a 500.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type TestSandbox, startSandbox } from './helpers.js';

let sb: TestSandbox;
let origin: string;
let brandId: string;
let counter = 0;

beforeAll(async () => {
  sb = await startSandbox();
  origin = new URL(sb.info.baseUrl).origin;
  brandId = (await sb.api('GET', '/me')).body.brands[0].id;
});
afterAll(() => sb.close());

async function openLink(locale = 'en-US'): Promise<{ id: string; csrf: string; html: string }> {
  const created = await sb.admin('POST', '/links', { brandId, fullName: `Form Player ${++counter}` });
  sb.sandbox.state.link(created.body.id)!.locale = locale;
  const html = await (await fetch(`${origin}/claim/${created.body.id}`, { headers: { Accept: 'text/html' } })).text();
  return { id: created.body.id, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1], html };
}

async function post(id: string, fields: Record<string, string>): Promise<{ status: number; location: string | null; html: string }> {
  const res = await fetch(`${origin}/claim/${id}`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

const page = async (path: string) => (await fetch(`${origin}${path}`, { headers: { Accept: 'text/html' } })).text();
const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

/** A gift without options delivered to `country`, from the admin's list. */
async function plainGift(country: string): Promise<{ productId: string; name: string }> {
  const gifts = (await sb.admin('GET', '/gifts')).body.items as { productId: string; name: string; countries: string[]; combinations: unknown[]; published: boolean }[];
  return gifts.find((g) => g.published && g.combinations.length === 0 && g.countries.includes(country))!;
}

const address = { 'recipient.name': 'Form Player', 'recipient.phone': '+85212345678', 'recipient.address.street': '1 Queen\'s Road', 'recipient.address.city': 'Hong Kong' };

describe('gift site form', () => {
  test('the claim goes to the country chosen, shown or not, and ends on its confirmation', async () => {
    const link = await openLink();
    expect(link.html).toContain('<option value="US" selected>');
    const gift = await plainGift('HK');
    const claimed = await post(link.id, { csrf: link.csrf, 'recipient.address.country': 'HK', choice: gift.productId, ...address });
    expect(claimed.status).toBe(303);
    expect(claimed.location).toMatch(new RegExp(`^/claim/${link.id}\\?done=[A-Za-z0-9_-]{22}$`));
    const order = sb.sandbox.state.orders.at(-1)!;
    expect({ productId: order.productId, deliveryCountry: order.deliveryCountry }).toEqual({ productId: gift.productId, deliveryCountry: 'HK' });
    const done = await page(claimed.location!);
    expect(h1(done)).toBe('Your gift is on its way');
    expect(/<dl class="summary">[\s\S]*<\/dl>/.exec(done)![0].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()).toBe(`Gift ${gift.name} Delivered to Hong Kong SAR China (HK)`);
    for (const secret of ['Queen', '+85212345678']) expect(done).not.toContain(secret);
    // The link opened again, or with another link's token, says it was claimed.
    expect(h1(await page(`/claim/${link.id}`))).toBe('This gift has already been claimed');
    expect(h1(await page(`/claim/${link.id}?done=x`))).toBe('This gift has already been claimed');
    const other = await openLink();
    expect(h1(await page(`/claim/${other.id}?${claimed.location!.split('?')[1]}`))).toBe('Hello, Form Player 2!');
  });

  test('"Show gifts for this country" only shows them: a redirect naming the country, nothing claimed', async () => {
    const link = await openLink();
    const shown = await post(link.id, { csrf: link.csrf, 'recipient.address.country': 'IE', show: '1', choice: (await plainGift('IE')).productId, ...address });
    expect({ status: shown.status, location: shown.location }).toEqual({ status: 303, location: `/claim/${link.id}?country=IE` });
    expect((await sb.api('GET', `/personal-links/${link.id}`)).body.status).toBe('ACTIVE');
  });

  test('a de-DE link is answered in German, refusals and confirmation included', async () => {
    const link = await openLink('de-DE');
    expect(link.html).toContain('<html lang="de-DE">');
    expect(h1(link.html)).toBe(`Hallo, Form Player ${counter}!`);
    const refused = await post(link.id, { csrf: link.csrf, 'recipient.address.country': 'DE' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('<p class="error" id="gift-choice-error">Wähle ein Geschenk.</p>');
    expect(refused.html).toContain('Für Lieferungen nach DE ist eine Postleitzahl nötig (bis zu 20 Zeichen).');
    const gift = await plainGift('DE');
    const claimed = await post(link.id, { csrf: link.csrf, 'recipient.address.country': 'DE', choice: gift.productId, ...address, 'recipient.phone': '+4989123456', 'recipient.address.postalCode': '80331' });
    const done = await page(claimed.location!);
    expect(h1(done)).toBe('Dein Geschenk ist unterwegs');
    expect(done).toContain('<dd id="claimed-country">Deutschland (DE)</dd>');
    expect(h1(await page(`/claim/${link.id}`))).toBe('Dieses Geschenk wurde bereits angefordert');
  });

  test('hostile form values are a form with reasons or a redirect, never a 500', async () => {
    const link = await openLink();
    const values = ['', 'ZZ', '__proto__', 'x'.repeat(5000), '1e308', '?', `${(await plainGift('DE')).productId}?size=%00&__proto__=x`, '\u202e'];
    for (const name of ['recipient.address.country', 'choice', 'recipient.phone', 'recipient.address.postalCode', 'show']) {
      for (const value of values) {
        const reply = await post(link.id, { csrf: link.csrf, 'recipient.address.country': 'DE', ...address, [name]: value });
        expect([200, 303, 400]).toContain(reply.status);
      }
    }
    expect((await sb.api('GET', `/personal-links/${link.id}`)).body.status).toBe('ACTIVE');
    expect(h1(await page(`/claim/${link.id}?country=__proto__`))).toBe(`Hello, Form Player ${counter}!`);
  });
});
