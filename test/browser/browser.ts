/**
 * Debian's Chromium (/usr/bin/chromium, `apt-get install -y chromium`; .ci/run installs it when
 * missing) driven by playwright-core, which never downloads a browser. One browser per test file,
 * with a fresh profile in the run's temp directory, removed after the file.
 */
import { existsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { closeLater, tempDir } from '../helpers/cleanup.js';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function startBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  if (!existsSync(CHROMIUM)) {
    // Never skipped: the layer needs the browser (install it, as .ci/run does).
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`apt-get update && apt-get install -y chromium\` (or set SVC_CHROMIUM to its path).`);
  }
  // launchPersistentContext passes this directory as --user-data-dir: a fresh profile for each file.
  const context = await chromium.launchPersistentContext(tempDir('svc-chromium-'), { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1100, height: 900 } });
  closeLater(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  // Fail and say where: a page that does not show what a test waits for is a failure (15 s, not
  // playwright's 30 s, yet enough for a machine that runs the whole suite on two cores).
  page.setDefaultTimeout(15_000);
  return { context, page };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core in the page (evaluated through the driver, so the pages' CSP need not allow it). */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(axeSource);
  // Page code is passed as text: the tests compile without the DOM's types.
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) })))`)) as AxeFinding[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Presses Tab until the focused element matches `selector` (keyboard only; fails after `max` presses). */
export async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}
