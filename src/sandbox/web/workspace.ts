import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdminServices, handleAdmin } from '../admin.js';
import { formatNullableTimestamp, formatTimestamp } from '../clock.js';
import { ApiProblem } from '../errors.js';
import { type Order, type PersonalLink, LINK_STATUSES, SCOPES } from '../models.js';
import type { FormGuard } from './forms.js';
import { readForm } from './forms.js';
import { type Html, html, page, redirect, sendPage } from './html.js';

/*
 * The team's workspace at {adminUrl}/: one page per part of the account, each action a small form
 * posted to the admin API's own path. The form handler turns the fields into the body the admin JSON
 * call takes and runs that call (handleAdmin): what a form records is exactly what the JSON call
 * records. Then POST-redirect-GET, with the result shown on the page.
 */

const SITE = 'svc sandbox workspace';
const PURPOSE = 'workspace';
/** Rows shown per table (newest first); the admin API and /v1 list the rest. */
const ROWS = 100;

const SECTIONS = [
  ['', 'Overview'],
  ['links', 'Links'],
  ['orders', 'Orders'],
  ['campaigns', 'Campaigns'],
  ['keys', 'Keys'],
  ['settings', 'Settings'],
  ['clock', 'Clock'],
  ['deliveries', 'Webhook deliveries'],
] as const;
type Section = (typeof SECTIONS)[number][0];

interface Flash {
  ok: boolean;
  text: string;
}

/** How a form's fields become the admin call's body, per admin path. */
type Mapper = (form: URLSearchParams) => { method: 'POST' | 'PATCH'; body: Record<string, unknown> };

function optional(form: URLSearchParams, name: string): string | undefined {
  const value = (form.get(name) ?? '').trim();
  return value === '' ? undefined : value;
}

const post = (body: Record<string, unknown> = {}) => ({ method: 'POST' as const, body });

/** What a done action says: the record and where it stands now, from the admin call's answer. */
type Done = (answer: Record<string, unknown>, form: URLSearchParams) => string;
const linkDone: Done = (a) => `The link ${String(a.id)} is now ${String(a.status)}.`;
const orderDone: Done = (a) => `Order ${String(a.reference)} is now ${String(a.status)}.`;
const campaignDone: Done = (a) => `Campaign ${String(a.name)} is now ${String(a.status)}.`;

const ACTIONS: [RegExp, Mapper, Done][] = [
  [/^\/links$/, (f) => post({ campaignId: optional(f, 'campaignId'), brandId: optional(f, 'brandId'), fullName: f.get('fullName') ?? '' }), (a) => `Link created (${String(a.status)}): ${String(a.claimUrl)}`],
  [/^\/links\/[^/]+\/approve$/, () => post(), linkDone],
  [/^\/links\/[^/]+\/cancel$/, (f) => post({ reason: optional(f, 'reason') }), linkDone],
  [/^\/orders\/[^/]+\/(approve|reject|deliver|cancel)$/, () => post(), orderDone],
  [
    /^\/orders\/[^/]+\/ship$/,
    (f) => post({ carrier: optional(f, 'carrier'), trackingReference: optional(f, 'trackingReference'), trackingUrl: optional(f, 'trackingUrl') }),
    orderDone,
  ],
  [/^\/campaigns\/[^/]+\/(complete|reopen)$/, () => post(), campaignDone],
  [/^\/clock$/, (f) => post({ advanceSeconds: Number(f.get('advanceSeconds') ?? '') * Number(f.get('unit') ?? '1') }), (a) => `The clock now stands at ${String(a.now)}.`],
  [
    /^\/settings$/,
    (f) => ({
      method: 'PATCH',
      body: {
        approvalRequired: f.get('approvalRequired') === 'on',
        apiAccess: f.get('apiAccess') === 'on',
        rateLimitPerMinute: f.has('rateLimitPerMinute') ? Number(f.get('rateLimitPerMinute')) : undefined,
      },
    }),
    (a) => `Settings saved: approval ${a.approvalRequired ? 'required' : 'not required'}, API access ${a.apiAccess ? 'on' : 'off'}, ${String(a.rateLimitPerMinute)} requests a minute.`,
  ],
  [
    /^\/keys\/[^/]+$/,
    (f) => ({
      method: 'PATCH',
      body: f.has('revoked')
        ? { revoked: f.get('revoked') === 'true' }
        : { webhookUrl: optional(f, 'webhookUrl') ?? null, scopes: f.getAll('scopes'), brandIds: f.getAll('brandIds') },
    }),
    (a, f) => `Key ${String(a.name)} ${f.has('revoked') ? (a.revoked ? 'revoked' : 'restored') : 'saved'}.`,
  ],
];

function when(micros: number | null): string {
  const text = formatNullableTimestamp(micros);
  return text === null ? '—' : text.replace('T', ' ').slice(0, 19);
}

function button(action: string, label: string, csrf: string, fields: Html = html``, secondary = false): Html {
  return html`<form method="post" action="/_sandbox${action}"><input type="hidden" name="csrf" value="${csrf}">${fields}<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button></form>`;
}

export interface Workspace {
  /** Whether a GET of this path is one of the workspace's pages (others stay the JSON admin API's). */
  isPage(path: string): boolean;
  /** Serves a page or runs a form. */
  handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
}

export function workspace(services: AdminServices, guard: FormGuard): Workspace {
  const { state, webhooks } = services;
  const flashes = new Map<string, Flash>();

  function remember(flash: Flash): string {
    const id = randomBytes(9).toString('base64url');
    flashes.set(id, flash);
    // Only the last few results are kept: each is shown once after its redirect.
    if (flashes.size > 50) flashes.delete(flashes.keys().next().value as string);
    return id;
  }

  const csrf = (): string => guard.token(PURPOSE);
  const brandName = (id: string): string => state.brand(id)?.name ?? id;

  function nav(current: Section): Html {
    return html`<nav aria-label="Workspace"><ul>${SECTIONS.map(
      ([path, label]) => html`<li><a href="/_sandbox/${path}"${path === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>`;
  }

  function linkRow(link: PersonalLink): Html {
    const token = csrf();
    const campaign = link.campaignId === null ? 'Catalog' : (state.campaign(link.campaignId)?.name ?? link.campaignId);
    const open = link.status === 'REQUESTED' || link.status === 'ACTIVE';
    return html`<tr><td>${link.fullName}</td><td>${link.status}</td><td>${campaign}</td><td>${brandName(link.brandId)}</td><td class="nowrap">${when(link.createdAt)}</td>
<td><a href="/claim/${link.id}">Gift page<span class="visually-hidden"> of ${link.fullName}</span></a></td>
<td>${link.status === 'REQUESTED' ? button(`/links/${link.id}/approve`, `Approve`, token) : ''}${
      open
        ? button(
            `/links/${link.id}/cancel`,
            'Withdraw',
            token,
            html`<label for="reason-${link.id}" class="visually-hidden">Reason for withdrawing the link of ${link.fullName}</label><input type="text" id="reason-${link.id}" name="reason" maxlength="1000" placeholder="Reason (optional)">`,
            true,
          )
        : ''
    }</td></tr>`;
  }

  function orderRow(order: Order): Html {
    const token = csrf();
    const variations = Object.entries(order.variations).map(([k, v]) => `${k}: ${v}`).join(', ');
    const shipment = order.shipment === null ? '—' : [order.shipment.carrier, order.shipment.trackingReference, order.shipment.trackingUrl].filter((x) => x !== null).join(' · ');
    const ref = order.reference;
    const actions: Html[] = [];
    if (order.status === 'REQUESTED') actions.push(button(`/orders/${order.id}/approve`, 'Approve', token), button(`/orders/${order.id}/reject`, 'Reject', token, html``, true));
    if (order.status === 'PROCESSING') {
      actions.push(
        button(
          `/orders/${order.id}/ship`,
          'Ship',
          token,
          html`<span><label for="carrier-${order.id}">Carrier</label><input type="text" id="carrier-${order.id}" name="carrier" maxlength="1000"></span>
<span><label for="tracking-${order.id}">Tracking reference</label><input type="text" id="tracking-${order.id}" name="trackingReference" maxlength="1000"></span>
<span><label for="url-${order.id}">Tracking URL</label><input type="url" id="url-${order.id}" name="trackingUrl" maxlength="1000"></span>`,
        ),
      );
    }
    if (order.status === 'SENT') actions.push(button(`/orders/${order.id}/deliver`, 'Mark delivered', token));
    if (order.status !== 'CANCELLED') actions.push(button(`/orders/${order.id}/cancel`, 'Cancel order', token, html``, true));
    return html`<tr><th scope="row" class="nowrap">${ref}</th><td>${order.productName}${variations === '' ? '' : html`<br><span class="hint">${variations}</span>`}</td><td>${order.status}</td><td>${order.placedBy ?? 'player claim'}</td><td>${order.deliveryCountry}</td><td>${shipment}</td><td class="nowrap">${when(order.createdAt)}</td><td>${actions}</td></tr>`;
  }

  function body(section: Section): { title: string; content: Html } {
    const token = csrf();
    switch (section) {
      case '': {
        const count = (status: string) => state.links.filter((l) => l.status === status).length;
        return {
          title: 'Overview',
          content: html`<h1>Overview</h1><p>The sandbox's clock stands at <strong>${formatTimestamp(state.clock.now())}</strong>.</p>
<h2>Waiting for the team</h2><ul><li><a href="/_sandbox/links">${count('REQUESTED')} links to approve</a></li><li><a href="/_sandbox/orders">${state.orders.filter((o) => o.status === 'REQUESTED').length} orders to approve, ${state.orders.filter((o) => o.status === 'PROCESSING').length} to ship</a></li></ul>
<h2>Links by status</h2><ul>${LINK_STATUSES.map((s) => html`<li>${s}: ${count(s)}</li>`)}</ul>`,
        };
      }
      case 'links': {
        const rows = state.links.slice(-ROWS).reverse();
        const campaigns = state.campaigns.filter((c) => state.campaignIsActive(c));
        return {
          title: 'Links',
          content: html`<h1>Links</h1>
<table><caption class="visually-hidden">Personal links, newest first</caption><thead><tr><th scope="col">Player</th><th scope="col">Status</th><th scope="col">Campaign</th><th scope="col">Brand</th><th scope="col">Created</th><th scope="col">Claim page</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.map(linkRow)}</tbody></table>
${state.links.length > ROWS ? html`<p class="hint">The newest ${ROWS} of ${state.links.length} links.</p>` : ''}
<h2>Send a link</h2>
<form method="post" action="/_sandbox/links"><input type="hidden" name="csrf" value="${token}">
<label for="f-fullName">Player's full name</label><input type="text" id="f-fullName" name="fullName" required maxlength="255">
<label for="f-campaignId">Campaign</label><select id="f-campaignId" name="campaignId"><option value="">None: gifts from the catalog</option>${campaigns.map((c) => html`<option value="${c.id}">${c.name}</option>`)}</select>
<label for="f-brandId">Brand</label><select id="f-brandId" name="brandId">${state.brands.map((b) => html`<option value="${b.id}">${b.name}</option>`)}</select>
<p><button type="submit">Send link</button></p></form>`,
        };
      }
      case 'orders': {
        const rows = state.orders.slice(-ROWS).reverse();
        return {
          title: 'Orders',
          content: html`<h1>Orders</h1>
${rows.length === 0 ? html`<p>No orders yet.</p>` : html`<table><caption class="visually-hidden">Store orders, newest first</caption><thead><tr><th scope="col">Reference</th><th scope="col">Gift</th><th scope="col">Status</th><th scope="col">Placed by</th><th scope="col">Country</th><th scope="col">Shipment</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>${rows.map(orderRow)}</tbody></table>`}`,
        };
      }
      case 'campaigns':
        return {
          title: 'Campaigns',
          content: html`<h1>Campaigns</h1><table><caption class="visually-hidden">Campaigns</caption><thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Brands</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead><tbody>${state.campaigns.map(
            (c) => html`<tr><th scope="row">${c.name}</th><td>${c.status}</td><td>${c.brandIds.map(brandName).join(', ')}</td><td>${when(c.expiresAt)}</td><td>${
              c.status === 'ACTIVE' ? button(`/campaigns/${c.id}/complete`, `Complete`, token) : c.status === 'COMPLETED' ? button(`/campaigns/${c.id}/reopen`, `Reopen`, token, html``, true) : ''
            }</td></tr>`,
          )}</tbody></table>`,
        };
      case 'keys':
        return {
          title: 'Keys',
          content: html`<h1>Keys</h1><p class="hint">API keys and webhook secrets are not shown here; <code>svc sandbox</code> prints them when it starts.</p>${state.keys.map(
            (key) => html`<h2 id="key-${key.name}">Key ${key.name}${key.revoked ? ' (revoked)' : ''}</h2>
<form method="post" action="/_sandbox/keys/${key.name}"><input type="hidden" name="csrf" value="${token}">
<label for="webhook-${key.name}">Webhook URL</label><p class="hint" id="webhook-${key.name}-hint">https://, or http:// to a loopback host; empty for none.</p>
<input type="url" id="webhook-${key.name}" name="webhookUrl" value="${key.webhookUrl ?? ''}" aria-describedby="webhook-${key.name}-hint">
<fieldset><legend>Scopes</legend>${SCOPES.map((s) => html`<label class="choice"><input type="checkbox" name="scopes" value="${s}"${key.scopes.includes(s) ? html` checked` : ''}> ${s}</label>`)}</fieldset>
<fieldset><legend>Brands</legend>${state.brands.map((b) => html`<label class="choice"><input type="checkbox" name="brandIds" value="${b.id}"${key.brandIds.includes(b.id) ? html` checked` : ''}> ${b.name}</label>`)}</fieldset>
<button type="submit">Save key ${key.name}</button></form>
${button(`/keys/${key.name}`, key.revoked ? `Restore key ${key.name}` : `Revoke key ${key.name}`, token, html`<input type="hidden" name="revoked" value="${key.revoked ? 'false' : 'true'}">`, true)}`,
          )}`,
        };
      case 'settings': {
        const { tenant } = state;
        return {
          title: 'Settings',
          content: html`<h1>Settings</h1><form method="post" action="/_sandbox/settings"><input type="hidden" name="csrf" value="${token}">
<label class="choice"><input type="checkbox" name="approvalRequired"${tenant.approvalRequired ? html` checked` : ''}> Approval required: new links and store orders wait for the team</label>
<label class="choice"><input type="checkbox" name="apiAccess"${tenant.apiAccess ? html` checked` : ''}> API access: keys may call the API (off: every call is 401 and webhooks pause)</label>
<label for="f-rate">Requests per minute per key</label><input type="number" id="f-rate" name="rateLimitPerMinute" min="1" step="1" value="${tenant.rateLimitPerMinute}">
<p><button type="submit">Save settings</button></p></form>`,
        };
      }
      case 'clock':
        return {
          title: 'Clock',
          content: html`<h1>Clock</h1><p>The sandbox's virtual clock stands at <strong>${formatTimestamp(state.clock.now())}</strong>. Advancing it runs what falls due: campaign expiries, webhook retries, event retention.</p>
<form method="post" action="/_sandbox/clock"><input type="hidden" name="csrf" value="${token}">
<label for="f-advance">Advance by</label><input type="number" id="f-advance" name="advanceSeconds" min="0" step="any" required value="1">
<label for="f-unit">Unit</label><select id="f-unit" name="unit"><option value="1">seconds</option><option value="60">minutes</option><option value="3600" selected>hours</option><option value="86400">days</option></select>
<p><button type="submit">Advance the clock</button></p></form>`,
        };
      case 'deliveries': {
        const rows = webhooks.records.slice(-ROWS).reverse();
        return {
          title: 'Webhook deliveries',
          content: html`<h1>Webhook deliveries</h1>${rows.length === 0 ? html`<p>No webhook has been sent yet. Set a key's webhook URL on the <a href="/_sandbox/keys">Keys</a> page.</p>` : html`<table><caption class="visually-hidden">Delivery attempts, newest first</caption><thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">Key</th><th scope="col">URL</th><th scope="col">Attempt</th><th scope="col">Result</th><th scope="col">Body sent</th></tr></thead><tbody>${rows
            .map(
              (r) => html`<tr><td>${r.at.replace('T', ' ').slice(0, 19)}</td><td>${r.type}</td><td>${r.keyName}</td><td>${r.url}</td><td>${r.attempt}</td><td>${r.status === null ? '' : `HTTP ${r.status}`}${r.error === null ? '' : html`<br>${r.error}`}</td><td><pre>${webhooks.bodies.get(r.eventId) ?? ''}</pre></td></tr>`,
            )}</tbody></table>`}`,
        };
      }
    }
  }

  function show(res: ServerResponse, section: Section, query: URLSearchParams): void {
    const flash = flashes.get(query.get('result') ?? '');
    const { title, content } = body(section);
    const notice = flash === undefined ? '' : html`<div class="notice${flash.ok ? '' : ' bad'}" role="status"><p>${flash.text}</p></div>`;
    sendPage(res, 200, page({ title, site: SITE, nav: nav(section), body: html`${notice}${content}` }));
  }

  const sectionOf = (path: string): Section | undefined => SECTIONS.find(([name]) => path === `/${name}`)?.[0];
  return {
    isPage: (path) => sectionOf(path) !== undefined,
    async handle(req, res, path, query) {
      const section = sectionOf(path);
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (section === undefined) throw new ApiProblem(404, 'not_found', `There is no page ${path}.`);
        show(res, section, query);
        return;
      }
      const action = ACTIONS.find(([pattern]) => pattern.test(path));
      if (action === undefined) throw new ApiProblem(404, 'not_found', `There is no form ${path}.`);
      const form = await readForm(req);
      guard.check(req, form, PURPOSE);
      const [, map, done] = action;
      const { method, body: adminBody } = map(form);
      const back = `/_sandbox/${path.split('/')[1]}`;
      let flash: Flash;
      try {
        const answer = await handleAdmin(services, method, path, async () => adminBody);
        flash = { ok: true, text: done(JSON.parse(answer.json) as Record<string, unknown>, form) };
      } catch (err) {
        if (!(err instanceof ApiProblem) || err.status >= 500) throw err;
        const errors = err.extras.errors ?? [];
        flash = { ok: false, text: `Not done: ${errors.length > 0 ? errors.map((e) => `${e.field}: ${e.message}`).join(' ') : err.detail}` };
      }
      redirect(res, `${back}?result=${remember(flash)}`);
    },
  };
}
