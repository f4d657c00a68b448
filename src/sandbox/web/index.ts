import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminServices } from '../admin.js';
import { ApiProblem } from '../errors.js';
import { claimSite } from './claim.js';
import { FormGuard, isFormPost, wantsPage } from './forms.js';
import { html, page, sendPage } from './html.js';
import { workspace } from './workspace.js';

/**
 * The sandbox's web pages: the gift site at /claim/{linkId} (each link's claimUrl) and the team's
 * workspace at /_sandbox/ (pages for browsers, forms posted to the admin API's paths). The caller
 * has applied the admin guard (loopback Host, no foreign Origin) before either is reached.
 */
export interface SandboxWeb {
  /** Handles a /_sandbox request when it is a page or a form; false leaves it to the JSON admin API. */
  workspace(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean>;
  claim(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void>;
}

/** A refusal met while serving a page is answered as a page (a browser shows it), with its status. */
async function asPage(res: ServerResponse, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof ApiProblem) || res.headersSent) throw err;
    const title = err.status === 403 ? 'Refused' : err.status === 404 ? 'Not found' : 'Not possible';
    res.setHeader('Connection', 'close');
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
    sendPage(res, err.status, page({ title, site: 'svc sandbox', body: html`<h1>${title}</h1><p>${err.detail}</p>` }));
  }
}

export function createWeb(services: AdminServices): SandboxWeb {
  const guard = new FormGuard();
  const site = claimSite(services, guard);
  const team = workspace(services, guard);
  return {
    async workspace(req, res, path, query) {
      if (!isFormPost(req) && !(wantsPage(req) && (path === '' || team.isPage(path)))) return false;
      if (path === '') {
        res.writeHead(308, { Location: '/_sandbox/', 'Content-Length': 0 });
        res.end();
        return true;
      }
      await asPage(res, () => team.handle(req, res, path, query));
      return true;
    },
    claim: (req, res, path, query) => asPage(res, () => site.handle(req, res, path.slice('/claim/'.length), query)),
  };
}
