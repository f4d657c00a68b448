import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS, PATTERNS } from '../../api/generated/constants.js';
import { type AdminServices, handleAdmin } from '../admin.js';
import { formatTimestamp } from '../clock.js';
import { ApiProblem, type FieldError } from '../errors.js';
import { type Gift, type Order, type PersonalLink, translate } from '../models.js';
import type { SandboxState } from '../store.js';
import { isUuid, usesPostalCodes } from '../validate.js';
import { type FormGuard, isFormPost, readForm } from './forms.js';
import { type ClaimText, claimText, countryName } from './claim-text.js';
import { type FieldOptions, type Html, describedBy, errorText, field, fieldId, html, page, redirect, sendPage } from './html.js';
import { choiceValue, defaultCountry, offeredCountries, offeredGifts, parseChoiceValue } from './offer.js';

/** What the player entered, to show again beside the errors (never logged, never in a URL). */
type Answers = Record<string, string>;

type LabelKey = keyof ClaimText['labels'];

/** The recipient's fields and their labels' keys in the text table. */
const LABEL_KEYS: ReadonlyMap<string, LabelKey> = new Map([
  ['recipient.name', 'name'],
  ['recipient.email', 'email'],
  ['recipient.phone', 'phone'],
  ['recipient.address.street', 'street'],
  ['recipient.address.city', 'city'],
  ['recipient.address.postalCode', 'postalCode'],
  ['recipient.address.country', 'country'],
]);
const RECIPIENT_FIELDS = [...LABEL_KEYS.keys()].filter((name) => name !== 'recipient.address.country');

const MAX_LENGTHS: ReadonlyMap<string, number> = new Map([
  ['recipient.name', LIMITS.recipientName],
  ['recipient.email', LIMITS.recipientEmail],
  ['recipient.address.street', LIMITS.street],
  ['recipient.address.city', LIMITS.city],
  ['recipient.address.postalCode', LIMITS.postalCode],
]);

/** A field error as the player reads it, in the link's language: what is wrong, with the API's limit. */
function explain(t: ClaimText, error: FieldError, country: string): string {
  if (error.field === 'productId') return error.code === 'required' ? t.errors.chooseGift : t.errors.notDelivered(countryName(t, country));
  if (error.field === 'variations') return t.errors.options;
  const key = LABEL_KEYS.get(error.field);
  if (key === undefined) return error.message;
  const label = t.labels[key];
  if (error.code === 'too_long') return t.errors.tooLong(label, MAX_LENGTHS.get(error.field) ?? 0);
  if (error.code === 'required') return key === 'postalCode' ? t.errors.postalCode(country, LIMITS.postalCode) : t.errors.required(label);
  if (key === 'phone') return t.errors.phone;
  if (key === 'email') return t.errors.email;
  return t.errors.invalid(label);
}

function statusPage(res: ServerResponse, status: number, t: ClaimText, title: string, text: Html): void {
  sendPage(res, status, page({ title, site: t.site, lang: t.lang, skipText: t.skip, footerText: t.footer, body: html`<h1>${title}</h1>${text}` }));
}

export interface ClaimSite {
  handle(req: IncomingMessage, res: ServerResponse, linkId: string, query: URLSearchParams): Promise<void>;
}

function closedPage(res: ServerResponse, link: PersonalLink): boolean {
  const t = claimText(link.locale);
  if (link.status === 'REQUESTED') {
    statusPage(res, 200, t, t.notYet[0], html`<p>${t.notYet[1]}</p>`);
  } else if (link.status === 'CLAIMED') {
    statusPage(res, 200, t, t.claimed[0], html`<p>${t.claimed[1](formatTimestamp(link.claimedAt ?? link.updatedAt).slice(0, 10))}</p>`);
  } else if (link.status === 'CANCELLED' || link.status === 'EXPIRED') {
    statusPage(res, 200, t, t.expired[0], html`<p>${t.expired[1]}</p>`);
  } else {
    return false;
  }
  return true;
}

/** A combination's options in the link's language: "Size: M, Color: Black". */
function optionsLabel(gift: Gift, variations: Record<string, string>, locale: string): string {
  return gift.dimensions
    .map((d) => `${translate(d.label, locale)}: ${translate(d.values.find((v) => v.value === variations[d.name])?.label ?? { 'en-US': variations[d.name] }, locale)}`)
    .join(', ');
}

/** The page after a claim: the gift, its options and the delivery country (never the address). */
function confirmation(res: ServerResponse, state: SandboxState, link: PersonalLink, order: Order): void {
  const t = claimText(link.locale);
  const gift = state.gift(order.productId);
  const options = gift === undefined || gift.dimensions.length === 0 ? '' : optionsLabel(gift, order.variations, link.locale);
  statusPage(
    res,
    200,
    t,
    t.done.title,
    html`<p>${t.done.thanks(link.fullName)}</p>
<dl class="summary"><dt>${t.done.gift}</dt><dd id="claimed-gift">${order.productName}</dd>
${options === '' ? '' : html`<dt>${t.done.options}</dt><dd id="claimed-options">${options}</dd>`}
<dt>${t.done.country}</dt><dd id="claimed-country">${countryName(t, order.deliveryCountry)}</dd></dl>
<p>${t.done.address}</p>`,
  );
}

/** Each gift offered in `country`, with one choice per orderable combination (or the gift itself). */
function giftChoices(gifts: ReturnType<typeof offeredGifts>, link: PersonalLink, t: ClaimText, country: string, chosen: string | undefined, giftError: string | undefined): Html {
  return html`${gifts.length === 0 ? html`<p>${t.noGiftFor(countryName(t, country))}</p>` : ''}
${gifts.map(({ gift, combinations }) => {
const name = translate(gift.name, link.locale);
const description = gift.description === null ? null : translate(gift.description, link.locale);
const choices = gift.dimensions.length === 0 ? [undefined] : combinations;
return html`<fieldset><legend>${name}</legend>
${description === null ? '' : html`<p class="hint description">${description}</p>`}
${choices.map((combination) => {
const value = choiceValue(gift, combination);
const label = combination === undefined ? name : optionsLabel(gift, combination.variations, link.locale);
return html`<label class="choice"><input type="radio" name="choice" value="${value}"${value === chosen ? html` checked` : ''}${giftError === undefined ? '' : html` aria-invalid="true"`} required> ${label}</label>`;
})}
</fieldset>`;
})}`;
}

/** The address fields, with the API's limits, the answers given and each field's error; a postal code where the country uses one. */
function addressFields(link: PersonalLink, t: ClaimText, country: string, answers: Answers, errorOf: (name: string) => string | undefined): Html {
  const text = (name: string, key: LabelKey, more: Partial<FieldOptions>): Html => {
    const max = MAX_LENGTHS.get(name);
    return field({ name, label: t.labels[key], value: answers[name], required: true, maxlength: max, hint: max === undefined ? undefined : t.upTo(max), error: errorOf(name), optional: t.optional, ...more });
  };
  return html`${text('recipient.name', 'name', { value: answers['recipient.name'] ?? link.fullName, autocomplete: 'name' })}
${text('recipient.email', 'email', { type: 'email', value: answers['recipient.email'] ?? link.email ?? '', required: false, hint: t.emailHint, autocomplete: 'email' })}
${text('recipient.phone', 'phone', { type: 'tel', hint: t.phoneHint, autocomplete: 'tel', extra: html` pattern="${PATTERNS.phoneE164}"` })}
${text('recipient.address.street', 'street', { autocomplete: 'street-address' })}
${text('recipient.address.city', 'city', { autocomplete: 'address-level2' })}
${usesPostalCodes(country) ? text('recipient.address.postalCode', 'postalCode', { autocomplete: 'postal-code' }) : html`<p class="hint">${t.noPostalCode(countryName(t, country))}</p>`}`;
}

/**
 * The claim form for `country`, one of `countries` (the link's offered countries). "Deliver to" is a
 * member of the claim itself: the claim goes where the person chose, whether or not they pressed
 * "Show gifts for this country" (which only shows that country's gifts). The first submit button,
 * hidden, claims: Enter in a field claims, never only shows.
 */
function claimForm(state: SandboxState, guard: FormGuard, link: PersonalLink, countries: string[], country: string, answers: Answers, errors: FieldError[], countryError?: string): string {
  const t = claimText(link.locale);
  const errorOf = (name: string): string | undefined => {
    const found = errors.find((e) => e.field === name);
    return found === undefined ? undefined : explain(t, found, country);
  };
  const brand = state.brand(link.brandId)?.name ?? 'svc';
  const gifts = offeredGifts(state, link, country);
  const giftError = errorOf('productId') ?? errorOf('variations');
  const countryProblem = countryError ?? errorOf('recipient.address.country');
  const summary = errors.length === 0 ? '' : html`<div class="notice bad" role="alert"><h2>${t.check(errors.length)}</h2><ul>${errors.map((e) => html`<li><a href="#${e.field === 'productId' || e.field === 'variations' ? 'gift-choice' : e.field === 'recipient.address.country' ? 'f-country' : fieldId(e.field)}">${explain(t, e, country)}</a></li>`)}</ul></div>`;
  const body = html`
<h1>${t.hello(link.fullName)}</h1>
<p>${t.intro(brand)}</p>
${link.message === null ? '' : html`<h2>${t.messageFrom(brand)}</h2><p class="message">${link.message}</p>`}
${summary}
<form method="post" action="/claim/${link.id}" aria-label="${t.claimForm}" novalidate>
<input type="hidden" name="csrf" value="${guard.token(`claim:${link.id}`)}">
<button type="submit" class="visually-hidden" tabindex="-1" aria-hidden="true"></button>
<label for="f-country">${t.deliverTo}</label>
<p class="hint" id="f-country-hint">${t.countryHint(countryName(t, country))}</p>${errorText('country', countryProblem)}
<select id="f-country" name="recipient.address.country"${describedBy('country', true, countryProblem)}>
${countries.map((c) => html`<option value="${c}"${c === country ? html` selected` : ''}>${countryName(t, c)}</option>`)}
</select>
<button type="submit" name="show" value="1" class="secondary">${t.showGifts}</button>
<fieldset id="gift-choice"${giftError === undefined ? '' : html` aria-describedby="gift-choice-error"`}>
<legend>${t.chooseGift}</legend>
${giftError === undefined ? '' : html`<p class="error" id="gift-choice-error">${giftError}</p>`}
${giftChoices(gifts, link, t, country, answers.choice, giftError)}
</fieldset>
<fieldset>
<legend>${t.addressIn(countryName(t, country))}</legend>
${addressFields(link, t, country, answers, errorOf)}
</fieldset>
<button type="submit">${t.claim}</button>
</form>`;
  return page({ title: t.title(link.fullName), site: t.site, lang: t.lang, skipText: t.skip, footerText: t.footer, body });
}

/** Claims that just succeeded, by the token their confirmation's address carries (the newest kept). */
class Confirmations {
  private readonly byToken = new Map<string, { linkId: string; orderId: string }>();

  remember(linkId: string, orderId: string): string {
    const token = randomBytes(16).toString('base64url');
    this.byToken.set(token, { linkId, orderId });
    if (this.byToken.size > 1000) this.byToken.delete(this.byToken.keys().next().value as string);
    return token;
  }

  orderId(linkId: string, token: string | null): string | undefined {
    const found = token === null ? undefined : this.byToken.get(token);
    return found?.linkId === linkId ? found.orderId : undefined;
  }
}

/**
 * A claim posted by the player: the admin claim's body, through the admin claim's route, for the
 * country chosen in "Deliver to"; the form again, for that country, with the reasons when it is
 * refused; the confirmation when it is placed. "Show gifts for this country" only shows them.
 */
async function claimPost(services: AdminServices, guard: FormGuard, confirmations: Confirmations, req: IncomingMessage, res: ServerResponse, link: PersonalLink): Promise<void> {
  const { state } = services;
  if (!isFormPost(req)) throw new ApiProblem(415, 'unsupported_media_type', 'The gift site takes its form (application/x-www-form-urlencoded).');
  const form = await readForm(req);
  guard.check(req, form, `claim:${link.id}`);
  if (closedPage(res, link)) return;
  const country = form.get('recipient.address.country') ?? '';
  if (form.has('show')) {
    redirect(res, `/claim/${link.id}?${new URLSearchParams({ country }).toString()}`);
    return;
  }
  const answers: Answers = Object.fromEntries([...form].filter(([name]) => name === 'choice' || RECIPIENT_FIELDS.includes(name)));
  const text = (name: string): string | undefined => {
    const value = (form.get(name) ?? '').trim();
    return value === '' ? undefined : value;
  };
  const choice = text('choice');
  const { productId, variations } = choice === undefined ? { productId: undefined, variations: {} } : parseChoiceValue(choice);
  // The same body an admin POST /links/{id}/claim takes, through the same route: one code path.
  const body = {
    productId,
    variations,
    recipient: {
      name: text('recipient.name') ?? '',
      email: text('recipient.email'),
      phone: text('recipient.phone') ?? '',
      address: { street: text('recipient.address.street') ?? '', city: text('recipient.address.city') ?? '', postalCode: text('recipient.address.postalCode'), country },
    },
  };
  let orderId: string;
  try {
    const answer = await handleAdmin(services, 'POST', `/links/${link.id}/claim`, async () => body);
    orderId = (JSON.parse(answer.json) as { order: { id: string } }).order.id;
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.code !== 'invalid_request') throw err;
    const countries = offeredCountries(state, link);
    const shown = countries.includes(country) ? country : defaultCountry(state, link, countries);
    if (shown === undefined) throw err;
    sendPage(res, 400, claimForm(state, guard, link, countries, shown, answers, err.extras.errors ?? []));
    return;
  }
  redirect(res, `/claim/${link.id}?done=${confirmations.remember(link.id, orderId)}`);
}

export function claimSite(services: AdminServices, guard: FormGuard): ClaimSite {
  const { state } = services;
  const confirmations = new Confirmations();

  return {
    async handle(req, res, linkId, query) {
      const link = isUuid(linkId) ? state.link(linkId.toLowerCase()) : undefined;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') {
        throw new ApiProblem(405, 'method_not_allowed', 'The gift site takes GET and POST.', {}, { Allow: 'GET, HEAD, POST' });
      }
      if (link === undefined) {
        statusPage(res, 404, claimText('en-US'), 'This gift link does not exist', html`<p>Check that the whole link was copied.</p>`);
        return;
      }
      if (req.method === 'POST') return claimPost(services, guard, confirmations, req, res, link);
      const claimed = link.status === 'CLAIMED' ? confirmations.orderId(link.id, query.get('done')) : undefined;
      const order = claimed === undefined ? undefined : state.order(claimed);
      if (order !== undefined) return confirmation(res, state, link, order);
      if (closedPage(res, link)) return;
      const t = claimText(link.locale);
      const countries = offeredCountries(state, link);
      const asked = query.get('country');
      const fallback = defaultCountry(state, link, countries);
      if (fallback === undefined) {
        statusPage(res, 200, t, t.noGifts[0], html`<p>${t.noGifts[1]}</p>`);
        return;
      }
      const country = asked !== null && countries.includes(asked) ? asked : fallback;
      const countryError = asked !== null && asked !== country ? t.errors.unknownCountry : undefined;
      sendPage(res, 200, claimForm(state, guard, link, countries, country, {}, [], countryError));
    },
  };
}
