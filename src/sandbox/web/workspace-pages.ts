/**
 * The workspace's pages, one function each: what the team sees of the account, and the forms of its
 * actions, each posted to the admin API's own path (see workspace.ts).
 */
import { formatNullableTimestamp, formatTimestamp } from '../clock.js';
import { type Order, type PersonalLink, LINK_STATUSES, SCOPES } from '../models.js';
import type { SandboxState } from '../store.js';
import type { WebhookQueue } from '../webhooks.js';
import { type Html, html } from './html.js';

/** Rows shown per table (newest first); the admin API and /v1 list the rest. */
const ROWS = 100;

export const SECTIONS = [
  ['', 'Overview'],
  ['links', 'Links'],
  ['orders', 'Orders'],
  ['campaigns', 'Campaigns'],
  ['keys', 'Keys'],
  ['settings', 'Settings'],
  ['clock', 'Clock'],
  ['deliveries', 'Webhook deliveries'],
] as const;
export type Section = (typeof SECTIONS)[number][0];

/** What every page reads: the state, the deliveries, a fresh form token, brand names. */
export interface View {
  state: SandboxState;
  webhooks: WebhookQueue;
  csrf: () => string;
  brandName: (id: string) => string;
}

export interface PageBody {
  title: string;
  content: Html;
}

function when(micros: number | null): string {
  const text = formatNullableTimestamp(micros);
  return text === null ? '—' : text.replace('T', ' ').slice(0, 19);
}

/** A one-button form posted to an admin path, with the page's token. */
function button(action: string, label: string, csrf: string, fields: Html = html``, secondary = false): Html {
  return html`<form method="post" action="/_sandbox${action}"><input type="hidden" name="csrf" value="${csrf}">${fields}<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button></form>`;
}

function linkRow(v: View, link: PersonalLink): Html {
  const { state, brandName } = v;
  const token = v.csrf();
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

function orderRow(v: View, order: Order): Html {
  const token = v.csrf();
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

function overviewPage(v: View): PageBody {
  const { state } = v;
  const count = (status: string) => state.links.filter((l) => l.status === status).length;
  return {
    title: 'Overview',
    content: html`<h1>Overview</h1><p>The sandbox's clock stands at <strong>${formatTimestamp(state.clock.now())}</strong>.</p>
<h2>Waiting for the team</h2><ul><li><a href="/_sandbox/links">${count('REQUESTED')} links to approve</a></li><li><a href="/_sandbox/orders">${state.orders.filter((o) => o.status === 'REQUESTED').length} orders to approve, ${state.orders.filter((o) => o.status === 'PROCESSING').length} to ship</a></li></ul>
<h2>Links by status</h2><ul>${LINK_STATUSES.map((s) => html`<li>${s}: ${count(s)}</li>`)}</ul>`,
  };
}

function linksPage(v: View): PageBody {
  const { state } = v;
  const token = v.csrf();
  const rows = state.links.slice(-ROWS).reverse();
  const campaigns = state.campaigns.filter((c) => state.campaignIsActive(c));
  return {
    title: 'Links',
    content: html`<h1>Links</h1>
<table><caption class="visually-hidden">Personal links, newest first</caption><thead><tr><th scope="col">Player</th><th scope="col">Status</th><th scope="col">Campaign</th><th scope="col">Brand</th><th scope="col">Created</th><th scope="col">Claim page</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.map((link) => linkRow(v, link))}</tbody></table>
${state.links.length > ROWS ? html`<p class="hint">The newest ${ROWS} of ${state.links.length} links.</p>` : ''}
<h2>Send a link</h2>
<form method="post" action="/_sandbox/links"><input type="hidden" name="csrf" value="${token}">
<label for="f-fullName">Player's full name</label><input type="text" id="f-fullName" name="fullName" required maxlength="255">
<label for="f-campaignId">Campaign</label><select id="f-campaignId" name="campaignId"><option value="">None: gifts from the catalog</option>${campaigns.map((c) => html`<option value="${c.id}">${c.name}</option>`)}</select>
<label for="f-brandId">Brand</label><select id="f-brandId" name="brandId">${state.brands.map((b) => html`<option value="${b.id}">${b.name}</option>`)}</select>
<p><button type="submit">Send link</button></p></form>`,
  };
}

function ordersPage(v: View): PageBody {
  const { state } = v;
  const rows = state.orders.slice(-ROWS).reverse();
  return {
    title: 'Orders',
    content: html`<h1>Orders</h1>
${rows.length === 0 ? html`<p>No orders yet.</p>` : html`<table><caption class="visually-hidden">Store orders, newest first</caption><thead><tr><th scope="col">Reference</th><th scope="col">Gift</th><th scope="col">Status</th><th scope="col">Placed by</th><th scope="col">Country</th><th scope="col">Shipment</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>${rows.map((order) => orderRow(v, order))}</tbody></table>`}`,
  };
}

function campaignsPage(v: View): PageBody {
  const { state, brandName } = v;
  const token = v.csrf();
  return {
    title: 'Campaigns',
    content: html`<h1>Campaigns</h1><table><caption class="visually-hidden">Campaigns</caption><thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Brands</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead><tbody>${state.campaigns.map(
      (c) => html`<tr><th scope="row">${c.name}</th><td>${c.status}</td><td>${c.brandIds.map(brandName).join(', ')}</td><td>${when(c.expiresAt)}</td><td>${
        c.status === 'ACTIVE' ? button(`/campaigns/${c.id}/complete`, `Complete`, token) : c.status === 'COMPLETED' ? button(`/campaigns/${c.id}/reopen`, `Reopen`, token, html``, true) : ''
      }</td></tr>`,
    )}</tbody></table>`,
  };
}

function keysPage(v: View): PageBody {
  const { state } = v;
  const token = v.csrf();
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
}

function settingsPage(v: View): PageBody {
  const { state } = v;
  const token = v.csrf();
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

function clockPage(v: View): PageBody {
  const { state } = v;
  const token = v.csrf();
  return {
    title: 'Clock',
    content: html`<h1>Clock</h1><p>The sandbox's virtual clock stands at <strong>${formatTimestamp(state.clock.now())}</strong>. Advancing it runs what falls due: campaign expiries, webhook retries, event retention.</p>
<form method="post" action="/_sandbox/clock"><input type="hidden" name="csrf" value="${token}">
<label for="f-advance">Advance by</label><input type="number" id="f-advance" name="advanceSeconds" min="0" step="any" required value="1">
<label for="f-unit">Unit</label><select id="f-unit" name="unit"><option value="1">seconds</option><option value="60">minutes</option><option value="3600" selected>hours</option><option value="86400">days</option></select>
<p><button type="submit">Advance the clock</button></p></form>`,
  };
}

function deliveriesPage(v: View): PageBody {
  const { webhooks } = v;
  const rows = webhooks.records.slice(-ROWS).reverse();
  return {
    title: 'Webhook deliveries',
    content: html`<h1>Webhook deliveries</h1>${rows.length === 0 ? html`<p>No webhook has been sent yet. Set a key's webhook URL on the <a href="/_sandbox/keys">Keys</a> page.</p>` : html`<table><caption class="visually-hidden">Delivery attempts, newest first</caption><thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">Key</th><th scope="col">URL</th><th scope="col">Attempt</th><th scope="col">Result</th><th scope="col">Body sent</th></tr></thead><tbody>${rows
      .map(
        (r) => html`<tr><td>${r.at.replace('T', ' ').slice(0, 19)}</td><td>${r.type}</td><td>${r.keyName}</td><td>${r.url}</td><td>${r.attempt}</td><td>${r.status === null ? '' : `HTTP ${r.status}`}${r.error === null ? '' : html`<br>${r.error}`}</td><td><pre>${webhooks.bodies.get(r.eventId) ?? ''}</pre></td></tr>`,
      )}</tbody></table>`}`,
  };
}

export const PAGES: Record<Section, (v: View) => PageBody> = {
  '': overviewPage,
  links: linksPage,
  orders: ordersPage,
  campaigns: campaignsPage,
  keys: keysPage,
  settings: settingsPage,
  clock: clockPage,
  deliveries: deliveriesPage,
};
