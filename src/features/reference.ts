/**
 * The command reference, generated from the command tree so it never drifts from it: one Markdown
 * page per command (docs/reference/) and the man page svc(1) (docs/svc.1). `npm run docs` writes
 * them; a test fails when the files on disk are not what the tree gives.
 *
 * Everything comes from commander: usage, arguments, options (their choices, defaults and
 * environment variables, as commander's help prints them) and the examples each command adds to
 * its help ('afterHelp' text).
 */
import type { Command, Help } from 'commander';
import { ExitCode } from '../core/errors.js';

/** What each exit code means, in the order of docs/output.md's table (man page EXIT STATUS). */
const EXIT_STATUS: Record<keyof typeof ExitCode, string> = {
  ok: 'success',
  refused: 'the API refused the request; verify-signature found the signature invalid',
  usage: 'usage error found before any request',
  notFound: '404 not_found',
  auth: '401 or 403, or no key configured',
  unavailable: 'still failing after retries: 429, 5xx, time-out, connection error',
  interrupted: 'interrupted (Ctrl-C)',
};

/** The environment svc reads (man page ENVIRONMENT; each command's own variables are on its page). */
const ENVIRONMENT: [string, string][] = [
  ['SVC_PROFILE', 'the stored profile to use (as --profile)'],
  ['SVC_API_KEY', "the API key; overrides the profile's key and goes wherever the base URL points"],
  ['SVC_BASE_URL', 'the API base URL (as --base-url)'],
  ['SVC_CONFIG_DIR', 'where the config file lives (default: the OS config directory)'],
  ['SVC_WEBHOOK_SECRET', 'the webhook secret for signing and verifying'],
  ['SVC_KEYRING', '0 keeps keys in the 0600 config file instead of the OS keyring'],
  ['SVC_DEBUG', '1 turns on --debug'],
  ['NO_COLOR, FORCE_COLOR', 'colour off; FORCE_COLOR=1 forces it into a pipe'],
  ['CI', 'set: never prompt (as --no-input)'],
  ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'proxy for every request (lower-case forms too); loopback is never proxied'],
  ['NODE_EXTRA_CA_CERTS', 'extra CA certificates (PEM) for a proxy or company CA'],
];

export interface ReferenceFiles {
  /** file name below docs/reference/ → Markdown */
  pages: Map<string, string>;
  /** docs/svc.1 */
  manPage: string;
}

interface Entry {
  /** words from the root, e.g. ['links', 'create'] */
  path: string[];
  command: Command;
}

/** Every visible command below the root, depth first, in the tree's order. */
function entries(command: Command, path: string[] = []): Entry[] {
  const help = command.createHelp();
  return help.visibleCommands(command).flatMap((child) => {
    if (child.name() === 'help') return [];
    const childPath = [...path, child.name()];
    return [{ path: childPath, command: child }, ...entries(child, childPath)];
  });
}

/** The text a command adds after its help (its examples), as commander prints it: its whole help less the help proper. */
function afterHelp(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk: string) => (text += chunk) }).outputHelp();
  return text.slice(command.helpInformation().length).trim();
}

/**
 * A command's after-help text split into its examples (`  $ svc …` lines, with the lines that
 * continue one ending in a backslash) and its notes (anything else).
 */
function afterHelpParts(command: Command): { examples: string[]; notes: string[] } {
  const examples: string[] = [];
  const notes: string[] = [];
  for (const line of afterHelp(command).split('\n')) {
    const example = /^\s*\$ (.*)$/.exec(line)?.[1];
    if (example !== undefined) examples.push(example);
    else if (examples.at(-1)?.endsWith('\\')) examples.push(`  ${line.trim()}`);
    else if (line.trim() !== '' && line.trim() !== 'Examples:') notes.push(line.trim());
  }
  return { examples, notes };
}

const fileName = (path: string[]): string => `svc-${path.join('-')}.md`;

function optionRows(help: Help, command: Command): string[] {
  return help.visibleOptions(command).map((option) => `| \`${help.optionTerm(option)}\` | ${markdownCell(help.optionDescription(option))} |`);
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function markdownPage(entry: Entry): string {
  const { command, path } = entry;
  const help = command.createHelp();
  const lines = [`# svc ${path.join(' ')}`, '', command.description(), '', '```', help.commandUsage(command), '```', ''];
  const args = help.visibleArguments(command);
  if (args.length > 0) {
    lines.push('## Arguments', '', '| argument | meaning |', '|---|---|');
    for (const argument of args) lines.push(`| \`${help.argumentTerm(argument)}\` | ${markdownCell(help.argumentDescription(argument))} |`);
    lines.push('');
  }
  const subcommands = help.visibleCommands(command).filter((child) => child.name() !== 'help');
  if (subcommands.length > 0) {
    lines.push('## Commands', '', '| command | what it does |', '|---|---|');
    for (const child of subcommands) lines.push(`| [\`svc ${[...path, child.name()].join(' ')}\`](${fileName([...path, child.name()])}) | ${markdownCell(child.description())} |`);
    lines.push('');
  }
  const options = optionRows(help, command);
  if (options.length > 0) lines.push('## Options', '', '| option | meaning |', '|---|---|', ...options, '');
  const env = help.visibleOptions(command).filter((option) => option.envVar);
  if (env.length > 0) {
    lines.push('## Environment', '', ...env.map((option) => `- \`${option.envVar}\`: as \`${option.long}\``), '');
  }
  const { examples, notes } = afterHelpParts(command);
  if (examples.length > 0) lines.push('## Examples', '', '```sh', ...examples, '```', '');
  if (notes.length > 0) lines.push(notes.join('\n'), '');
  lines.push('Global options (`--profile`, `-o`, `--jq`, `--debug`, …) work with every command: see [svc](svc.md).', '');
  return lines.join('\n');
}

function rootPage(root: Command, all: Entry[]): string {
  const help = root.createHelp();
  const lines = ['# svc', '', root.description(), '', '```', help.commandUsage(root), '```', ''];
  lines.push('## Commands', '', '| command | what it does |', '|---|---|');
  for (const entry of all) lines.push(`| [\`svc ${entry.path.join(' ')}\`](${fileName(entry.path)}) | ${markdownCell(entry.command.description())} |`);
  lines.push('', '## Global options', '', '| option | meaning |', '|---|---|', ...optionRows(help, root), '');
  lines.push('## Environment', '', '| variable | meaning |', '|---|---|', ...ENVIRONMENT.map(([name, meaning]) => `| \`${name}\` | ${markdownCell(meaning)} |`), '');
  lines.push('## Exit status', '', '| exit | when |', '|---|---|', ...exitRows().map(([code, meaning]) => `| ${code} | ${meaning} |`), '');
  const { examples } = afterHelpParts(root);
  if (examples.length > 0) lines.push('## Examples', '', '```sh', ...examples, '```', '');
  return lines.join('\n');
}

function exitRows(): [number, string][] {
  return (Object.keys(ExitCode) as (keyof typeof ExitCode)[]).map((name) => [ExitCode[name], EXIT_STATUS[name]]);
}

/** Text made safe for roff: backslashes doubled, hyphens as \-, no line starting with a control character. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

function manOptions(help: Help, command: Command): string[] {
  return help.visibleOptions(command).flatMap((option) => ['.TP', `.B ${roff(help.optionTerm(option))}`, roff(help.optionDescription(option))]);
}

function manPage(root: Command, all: Entry[]): string {
  const help = root.createHelp();
  const { examples } = afterHelpParts(root);
  const lines = [
    '.TH SVC 1 "" "svc" "User Commands"',
    '.SH NAME',
    `svc \\- ${roff(root.description())}`,
    '.SH SYNOPSIS',
    roff(help.commandUsage(root)),
    '.SH DESCRIPTION',
    roff(root.description()),
    'Tables on a terminal; JSON lines in a pipe (\\-o json, jsonl, csv or \\-\\-jq choose).',
    'Data goes to standard output; hints, progress and errors to standard error.',
    '.SH GLOBAL OPTIONS',
    ...manOptions(help, root),
    '.SH COMMANDS',
  ];
  for (const entry of all) {
    const commandHelp = entry.command.createHelp();
    lines.push('.SS', `.B ${roff(commandHelp.commandUsage(entry.command))}`, roff(entry.command.description()));
    const options = manOptions(commandHelp, entry.command);
    if (options.length > 0) lines.push('.RS', ...options, '.RE');
    const { examples, notes } = afterHelpParts(entry.command);
    if (notes.length > 0) lines.push('.PP', roff(notes.join('\n')));
    if (examples.length > 0) lines.push('.PP', 'Examples:', '.PP', '.RS', '.nf', ...examples.map(roff), '.fi', '.RE');
  }
  lines.push('.SH ENVIRONMENT');
  for (const [name, meaning] of ENVIRONMENT) lines.push('.TP', `.B ${roff(name)}`, roff(meaning));
  lines.push('.SH EXIT STATUS');
  for (const [code, meaning] of exitRows()) lines.push('.TP', `.B ${code}`, roff(meaning));
  if (examples.length > 0) lines.push('.SH EXAMPLES', '.nf', ...examples.map(roff), '.fi');
  lines.push('.SH SEE ALSO', 'The guides in the docs/ directory of the svc source: sandbox, output, security, mcp, architecture.', '');
  return lines.join('\n');
}

/** The reference pages and the man page for this command tree (every verb declared: `commandTree()`). */
export function renderReference(root: Command): ReferenceFiles {
  const all = entries(root);
  const pages = new Map<string, string>([['svc.md', rootPage(root, all)]]);
  for (const entry of all) pages.set(fileName(entry.path), markdownPage(entry));
  return { pages, manPage: manPage(root, all) };
}
