import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdminServices, handleAdmin } from '../admin.js';
import { ApiProblem } from '../errors.js';
import type { FormGuard } from './forms.js';
import { readForm } from './forms.js';
import { type Html, html, page, redirect, sendPage } from './html.js';
import { PAGES, SECTIONS, type Section } from './workspace-pages.js';

/*
 * The team's workspace at {adminUrl}/: one page per part of the account, each action a small form
 * posted to the admin API's own path. The form handler turns the fields into the body the admin JSON
 * call takes and runs that call (handleAdmin): what a form records is exactly what the JSON call
 * records. Then POST-redirect-GET, with the result shown on the page.
 */

const SITE = 'svc sandbox workspace';
const PURPOSE = 'workspace';
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

/** The clock form's seconds: blank is absent (required), an unknown unit is not a number (invalid). */
function advanceSeconds(form: URLSearchParams): number | undefined {
  const amount = (form.get('advanceSeconds') ?? '').trim();
  if (amount === '') return undefined;
  const unit = ['1', '60', '3600', '86400'].includes(form.get('unit') ?? '1') ? Number(form.get('unit') ?? '1') : Number.NaN;
  return Number(amount) * unit;
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
  [/^\/clock$/, (f) => post({ advanceSeconds: advanceSeconds(f) }), (a) => `The clock now stands at ${String(a.now)}.`],
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

  function show(res: ServerResponse, section: Section, query: URLSearchParams): void {
    const flash = flashes.get(query.get('result') ?? '');
    const { title, content } = PAGES[section]({ state, webhooks, csrf, brandName });
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
