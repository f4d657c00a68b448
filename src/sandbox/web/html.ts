import type { ServerResponse } from 'node:http';

/*
 * The sandbox's pages are plain server-rendered HTML. Everything that comes from data goes through
 * `html`, whose one escape (escapeHtml) is applied to every interpolated value; only fragments that
 * `html` itself made (Html) pass through unescaped.
 */

/** A fragment of markup made by `html` (already escaped). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The one escape helper: text and attribute values alike. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`; arrays of fragments are joined. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += render(value) + strings[i + 1]));
  return new Html(out);
}

const STYLE = `
:root{color-scheme:light;font-family:system-ui,sans-serif;line-height:1.5;color:#1b1f24;background:#f6f7f9}
body{margin:0}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:1}
.skip:focus{left:.5rem}
header,main,footer{max-width:64rem;margin:0 auto;padding:.75rem 1rem}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:baseline}
header p{margin:0;font-weight:700}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
a{color:#0b57d0}
a[aria-current=page]{font-weight:700;color:#1b1f24}
:focus-visible{outline:3px solid #c2410c;outline-offset:2px}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:1.25rem 0 .5rem}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.9rem}
th,td{border:1px solid #d0d5dd;padding:.35rem .5rem;text-align:left;vertical-align:top}
td form{display:inline-flex;flex-wrap:wrap;gap:.25rem;margin:0 .25rem .25rem 0;align-items:end}
fieldset{border:1px solid #d0d5dd;background:#fff;margin:0 0 1rem;padding:.5rem 1rem 1rem}
legend{font-weight:700;padding:0 .25rem}
label{display:block;font-weight:600;margin-top:.5rem}
label.choice{display:flex;gap:.5rem;font-weight:400;margin:.25rem 0}
input,select,button{font:inherit}
input[type=text],input[type=email],input[type=tel],input[type=url],input[type=number],select{border:1px solid #667085;border-radius:4px;padding:.3rem .4rem;max-width:100%}
input[type=text],input[type=email],input[type=tel],input[type=url]{width:24rem}
td input[type=text],td input[type=url]{width:10rem}
td label{margin-top:0;font-size:.85rem}
.nowrap{white-space:nowrap}
button{border:1px solid #0b57d0;background:#0b57d0;color:#fff;border-radius:4px;padding:.3rem .8rem;cursor:pointer}
button.secondary{background:#fff;color:#0b57d0}
[aria-invalid=true]{border-color:#b42318;border-width:2px}
.error{color:#b42318;font-weight:600;margin:.15rem 0}
.hint{color:#475467;font-size:.9rem;margin:.15rem 0}
.notice{border-left:4px solid #067647;background:#ecfdf3;padding:.5rem 1rem}
.notice.bad{border-color:#b42318;background:#fef3f2}
.description{white-space:pre-line}
.message{white-space:pre-line;background:#fff;border-left:4px solid #0b57d0;padding:.5rem 1rem}
pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:.8rem}
dl.summary dt{font-weight:600;margin-top:.5rem}dl.summary dd{margin-left:0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

export interface PageOptions {
  title: string;
  /** The site's name, shown in the banner. */
  site: string;
  nav?: Html;
  body: Html;
  /** The page's language (a gift page takes its link's) and the frame's sentences in it; English by default. */
  lang?: string;
  skipText?: string;
  footerText?: string;
}

export function page({ title, site, nav, body, lang = 'en', skipText = 'Skip to main content', footerText = 'svc sandbox: a local stand-in for the service. Nothing here is sent anywhere.' }: PageOptions): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${site}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">${skipText}</a>
<header><p>${site}</p>${nav}</header>
<main id="main" tabindex="-1">
${body}
</main>
<footer><p class="hint">${footerText}</p></footer>
</body>
</html>
`.text;
}

/** Pages are never cached or framed, and never give another site a referrer (a claim URL is the player's own). */
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser posts forms with `Origin: null`.
  'Referrer-Policy': 'same-origin',
};

export function sendPage(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** POST-redirect-GET: 303 to a page of the same site. */
export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { ...PAGE_HEADERS, Location: location, 'Content-Length': 0 });
  res.end();
}

/** One labelled field with its hint and error tied to it (aria-describedby, aria-invalid). */
export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'tel' | 'url' | 'number';
  value?: string;
  required?: boolean;
  maxlength?: number;
  hint?: string;
  error?: string;
  autocomplete?: string;
  extra?: Html;
  /** What follows the label of a field that is not required, in the page's language. */
  optional?: string;
}

export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export function describedBy(name: string, hint: boolean, error: string | undefined): Html {
  const id = fieldId(name);
  const ids = [hint ? `${id}-hint` : '', error !== undefined ? `${id}-error` : ''].filter((x) => x !== '');
  return html`${ids.length > 0 ? html` aria-describedby="${ids.join(' ')}"` : ''}${error !== undefined ? html` aria-invalid="true"` : ''}`;
}

export function errorText(name: string, error: string | undefined): Html {
  return error === undefined ? html`` : html`<p class="error" id="${fieldId(name)}-error">${error}</p>`;
}

export function field(o: FieldOptions): Html {
  const id = fieldId(o.name);
  return html`<label for="${id}">${o.label}${o.required ? '' : ` (${o.optional ?? 'optional'})`}</label>
${o.hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${o.hint}</p>`}${errorText(o.name, o.error)}
<input type="${o.type ?? 'text'}" id="${id}" name="${o.name}" value="${o.value ?? ''}"${o.required ? html` required` : ''}${o.maxlength === undefined ? '' : html` maxlength="${o.maxlength}"`}${o.autocomplete === undefined ? '' : html` autocomplete="${o.autocomplete}"`}${describedBy(o.name, o.hint !== undefined, o.error)}${o.extra}>`;
}
