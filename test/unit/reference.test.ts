/**
 * The command reference (docs/reference/) and the man page (docs/svc.1) are what the command tree
 * gives: a command, flag or example added without `npm run docs` fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { commandTree } from '../../src/cli.js';
import { renderReference } from '../../src/features/reference.js';

const docs = resolve(import.meta.dirname, '../../docs');
const { pages, manPage } = renderReference(await commandTree());

describe('command reference', () => {
  it('docs/reference/ is current, a page per command and nothing else (regenerate with: npm run docs)', () => {
    const onDisk = new Map(readdirSync(resolve(docs, 'reference')).map((name) => [name, readFileSync(resolve(docs, 'reference', name), 'utf8')]));
    expect(onDisk).toEqual(pages);
  });

  it('docs/svc.1 is current (regenerate with: npm run docs)', () => {
    expect(readFileSync(resolve(docs, 'svc.1'), 'utf8')).toBe(manPage);
  });

  it('has a page for every visible command, naming each of its flags', async () => {
    const visit = (command: Command, path: string[]) => {
      for (const child of command.createHelp().visibleCommands(command)) {
        if (child.name() === 'help') continue;
        const childPath = [...path, child.name()];
        const page = pages.get(`svc-${childPath.join('-')}.md`);
        expect(page, childPath.join(' ')).toBeDefined();
        for (const option of child.options) if (option.long && !option.hidden) expect(page, `${childPath.join(' ')} ${option.long}`).toContain(option.long);
        visit(child, childPath);
      }
    };
    visit(await commandTree(), []);
    expect(pages.size).toBeGreaterThan(30);
  });

  it('the man page escapes roff: no line starts with a control character from the text', () => {
    const lines = manPage.split('\n');
    const requests = lines.filter((line) => /^[.']/.test(line));
    for (const line of requests) expect(line).toMatch(/^\.(TH|SH|SS|TP|B|PP|RS|RE|nf|fi)\b/);
  });
});
