import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS, PATTERNS } from '../../api/generated/constants.js';
import { type AdminServices, handleAdmin } from '../admin.js';
import { formatTimestamp } from '../clock.js';
import { ApiProblem, type FieldError } from '../errors.js';
import { type PersonalLink, translate } from '../models.js';
import type { SandboxState } from '../store.js';
import { isUuid, usesPostalCodes } from '../validate.js';
import { type FormGuard, isFormPost, readForm } from './forms.js';
import { type Html, describedBy, errorText, field, fieldId, html, page, redirect, sendPage } from './html.js';
import { choiceValue, defaultCountry, offeredCountries, offeredGifts, parseChoiceValue } from './offer.js';

const SITE = 'Gift site';
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

function countryName(code: string): string {
  return `${regionNames.of(code) ?? code} (${code})`;
}

/** What the player entered, to show again beside the errors (never logged, never in a URL). */
type Answers = Record<string, string>;

const RECIPIENT_FIELDS = ['recipient.name', 'recipient.email', 'recipient.phone', 'recipient.address.street', 'recipient.address.city', 'recipient.address.postalCode'] as const;

const LABELS: Record<string, string> = {
  'recipient.name': 'Full name',
  'recipient.email': 'E-mail',
  'recipient.phone': 'Phone number',
  'recipient.address.street': 'Street and number',
  'recipient.address.city': 'City',
  'recipient.address.postalCode': 'Postal code',
  'recipient.address.country': 'Country',
};

const MAX_LENGTHS: Record<string, number> = {
  'recipient.name': LIMITS.recipientName,
  'recipient.email': LIMITS.recipientEmail,
  'recipient.address.street': LIMITS.street,
  'recipient.address.city': LIMITS.city,
  'recipient.address.postalCode': LIMITS.postalCode,
};

/** A field error as the player reads it: what is wrong, with the API's limit. */
function explain(error: FieldError): string {
  const label = LABELS[error.field];
  if (error.field === 'productId') return error.code === 'required' ? 'Choose a gift.' : error.message;
  if (error.field === 'variations') return error.message;
  if (label === undefined) return error.message;
  const max = MAX_LENGTHS[error.field];
  if (error.code === 'too_long') return `${label} can be at most ${max} characters.`;
  if (error.code === 'required') return error.field.endsWith('postalCode') ? error.message : `Enter your ${label.toLowerCase()}.`;
  if (error.field === 'recipient.phone') return 'Enter the phone number in international format: + and the country code, then up to 14 digits (such as +4930123456).';
  if (error.field === 'recipient.email') return 'Enter an e-mail address such as name@example.com.';
  return `${label} is not valid.`;
}

function statusPage(res: ServerResponse, status: number, title: string, text: Html): void {
  sendPage(res, status, page({ title, site: SITE, body: html`<h1>${title}</h1>${text}` }));
}

export interface ClaimSite {
  handle(req: IncomingMessage, res: ServerResponse, linkId: string, query: URLSearchParams): Promise<void>;
}

function closedPage(res: ServerResponse, link: PersonalLink): boolean {
  if (link.status === 'REQUESTED') {
    statusPage(res, 200, 'Your gift is not available yet', html`<p>This gift link is waiting for approval. Please open it again later.</p>`);
  } else if (link.status === 'CLAIMED') {
    statusPage(
      res,
      200,
      'This gift has already been claimed',
      html`<p>This link was claimed on ${formatTimestamp(link.claimedAt ?? link.updatedAt).slice(0, 10)}. The gift goes to the address given with the claim.</p>`,
    );
  } else if (link.status === 'CANCELLED' || link.status === 'EXPIRED') {
    statusPage(res, 200, 'This gift link has expired', html`<p>This link can no longer be used to choose a gift.</p>`);
  } else {
    return false;
  }
  return true;
}

/** Each gift offered in `country`, with one choice per orderable combination (or the gift itself). */
function giftChoices(gifts: ReturnType<typeof offeredGifts>, link: PersonalLink, country: string, chosen: string | undefined, giftError: string | undefined): Html {
  const lang = link.locale === 'en-US' ? '' : link.locale;
  return html`${gifts.length === 0 ? html`<p>No gift is delivered to ${countryName(country)} now.</p>` : ''}
${gifts.map(({ gift, combinations }) => {
const name = translate(gift.name, link.locale);
const description = gift.description === null ? null : translate(gift.description, link.locale);
const choices = gift.dimensions.length === 0 ? [undefined] : combinations;
return html`<fieldset${lang === '' ? '' : html` lang="${lang}"`}><legend>${name}</legend>
${description === null ? '' : html`<p class="hint description">${description}</p>`}
${choices.map((combination) => {
const value = choiceValue(gift, combination);
const label = combination === undefined ? name : gift.dimensions.map((d) => `${translate(d.label, link.locale)}: ${translate(d.values.find((v) => v.value === combination.variations[d.name])?.label ?? { 'en-US': combination.variations[d.name] }, link.locale)}`).join(', ');
return html`<label class="choice"><input type="radio" name="choice" value="${value}"${value === chosen ? html` checked` : ''}${giftError === undefined ? '' : html` aria-invalid="true"`} required> ${label}</label>`;
})}
</fieldset>`;
})}`;
}

/** The address fields, with the API's limits, the answers given and each field's error; a postal code where the country uses one. */
function addressFields(link: PersonalLink, country: string, answers: Answers, errorOf: (name: string) => string | undefined): Html {
  const postal = usesPostalCodes(country);
  return html`${field({ name: 'recipient.name', label: LABELS['recipient.name'], value: answers['recipient.name'] ?? link.fullName, required: true, maxlength: LIMITS.recipientName, hint: `Up to ${LIMITS.recipientName} characters.`, error: errorOf('recipient.name'), autocomplete: 'name' })}
${field({ name: 'recipient.email', label: LABELS['recipient.email'], type: 'email', value: answers['recipient.email'] ?? link.email ?? '', maxlength: LIMITS.recipientEmail, hint: 'We send the delivery status there.', error: errorOf('recipient.email'), autocomplete: 'email' })}
${field({ name: 'recipient.phone', label: LABELS['recipient.phone'], type: 'tel', value: answers['recipient.phone'], required: true, hint: 'International format, such as +4930123456.', error: errorOf('recipient.phone'), autocomplete: 'tel', extra: html` pattern="${PATTERNS.phoneE164}"` })}
${field({ name: 'recipient.address.street', label: LABELS['recipient.address.street'], value: answers['recipient.address.street'], required: true, maxlength: LIMITS.street, hint: `Up to ${LIMITS.street} characters.`, error: errorOf('recipient.address.street'), autocomplete: 'street-address' })}
${field({ name: 'recipient.address.city', label: LABELS['recipient.address.city'], value: answers['recipient.address.city'], required: true, maxlength: LIMITS.city, hint: `Up to ${LIMITS.city} characters.`, error: errorOf('recipient.address.city'), autocomplete: 'address-level2' })}
${postal ? field({ name: 'recipient.address.postalCode', label: LABELS['recipient.address.postalCode'], value: answers['recipient.address.postalCode'], required: true, maxlength: LIMITS.postalCode, hint: `Up to ${LIMITS.postalCode} characters.`, error: errorOf('recipient.address.postalCode'), autocomplete: 'postal-code' }) : html`<p class="hint">No postal code is needed for ${countryName(country)}.</p>`}`;
}

/** The claim form for `country`, one of `countries` (the link's offered countries). */
function claimForm(state: SandboxState, guard: FormGuard, link: PersonalLink, countries: string[], country: string, answers: Answers, errors: FieldError[], countryError?: string): string {
  const errorOf = (name: string): string | undefined => {
    const found = errors.find((e) => e.field === name);
    return found === undefined ? undefined : explain(found);
  };
  const brand = state.brand(link.brandId)?.name ?? 'the operator';
  const gifts = offeredGifts(state, link, country);
  const chosen = answers.choice;
  const giftError = errorOf('productId') ?? errorOf('variations');
  const summary = errors.length === 0 ? '' : html`<div class="notice bad" role="alert"><h2>Please check ${errors.length === 1 ? 'one answer' : `${errors.length} answers`}</h2><ul>${errors.map((e) => html`<li><a href="#${e.field === 'productId' || e.field === 'variations' ? 'gift-choice' : fieldId(e.field)}">${explain(e)}</a></li>`)}</ul></div>`;
  const body = html`
<h1>Hello, ${link.fullName}!</h1>
<p>${brand} has a gift for you. Choose one gift and tell us where to send it.</p>
${link.message === null ? '' : html`<h2>A message from ${brand}</h2><p class="message">${link.message}</p>`}
${summary}
<form method="get" action="/claim/${link.id}" aria-label="Delivery country">
<label for="f-country">Deliver to</label>
<p class="hint" id="f-country-hint">The gifts on offer depend on the country.</p>${errorText('country', countryError)}
<select id="f-country" name="country"${describedBy('country', true, countryError)}>
${countries.map((c) => html`<option value="${c}"${c === country ? html` selected` : ''}>${countryName(c)}</option>`)}
</select>
<button type="submit" class="secondary">Show gifts for this country</button>
</form>
<form method="post" action="/claim/${link.id}" aria-label="Claim your gift" novalidate>
<input type="hidden" name="csrf" value="${guard.token(`claim:${link.id}`)}">
<input type="hidden" name="recipient.address.country" value="${country}">
<fieldset id="gift-choice"${giftError === undefined ? '' : html` aria-describedby="gift-choice-error"`}>
<legend>Choose your gift</legend>
${giftError === undefined ? '' : html`<p class="error" id="gift-choice-error">${giftError}</p>`}
${giftChoices(gifts, link, country, chosen, giftError)}
</fieldset>
<fieldset>
<legend>Delivery address in ${countryName(country)}</legend>
${addressFields(link, country, answers, errorOf)}
${errorText('recipient.address.country', errorOf('recipient.address.country'))}
</fieldset>
<button type="submit">Claim my gift</button>
</form>`;
  return page({ title: `A gift for ${link.fullName}`, site: SITE, body });
}

/** A claim posted by the player: the admin claim's body, through the admin claim's route; the form again with the reasons when it is refused. */
async function claimPost(services: AdminServices, guard: FormGuard, req: IncomingMessage, res: ServerResponse, link: PersonalLink): Promise<void> {
  const { state } = services;
  if (!isFormPost(req)) throw new ApiProblem(415, 'unsupported_media_type', 'The gift site takes its form (application/x-www-form-urlencoded).');
  const form = await readForm(req);
  guard.check(req, form, `claim:${link.id}`);
  if (closedPage(res, link)) return;
  const answers: Answers = Object.fromEntries([...form].filter(([name]) => name === 'choice' || RECIPIENT_FIELDS.includes(name as (typeof RECIPIENT_FIELDS)[number])));
  const country = form.get('recipient.address.country') ?? '';
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
  try {
    await handleAdmin(services, 'POST', `/links/${link.id}/claim`, async () => body);
  } catch (err) {
    if (!(err instanceof ApiProblem) || err.code !== 'invalid_request') throw err;
    const countries = offeredCountries(state, link);
    const shown = countries.includes(country) ? country : defaultCountry(state, link, countries);
    if (shown === undefined) throw err;
    sendPage(res, 400, claimForm(state, guard, link, countries, shown, answers, err.extras.errors ?? []));
    return;
  }
  redirect(res, `/claim/${link.id}`);
}

export function claimSite(services: AdminServices, guard: FormGuard): ClaimSite {
  const { state } = services;

  return {
    async handle(req, res, linkId, query) {
      const link = isUuid(linkId) ? state.link(linkId.toLowerCase()) : undefined;
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'POST') {
        throw new ApiProblem(405, 'method_not_allowed', 'The gift site takes GET and POST.', {}, { Allow: 'GET, HEAD, POST' });
      }
      if (link === undefined) {
        statusPage(res, 404, 'This gift link does not exist', html`<p>Check that the whole link was copied.</p>`);
        return;
      }
      if (req.method === 'POST') return claimPost(services, guard, req, res, link);
      if (closedPage(res, link)) return;
      const countries = offeredCountries(state, link);
      const asked = query.get('country');
      const fallback = defaultCountry(state, link, countries);
      if (fallback === undefined) {
        statusPage(res, 200, 'No gifts right now', html`<p>No gift can be delivered at the moment. Please open this link again later.</p>`);
        return;
      }
      const country = asked !== null && countries.includes(asked) ? asked : fallback;
      const countryError = asked !== null && asked !== country ? 'Gifts are not delivered to that country; choose one from the list.' : undefined;
      sendPage(res, 200, claimForm(state, guard, link, countries, country, {}, [], countryError));
    },
  };
}
