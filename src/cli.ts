/**
 * The command tree: global options (declared once, here) and the lazy list of commands. A command's
 * module — a group's verb table or a verb's declaration and work — is imported only when that
 * command runs, so `svc profiles ls` loads commander, this file and the one verb.
 */
import type { Command as TypedCommand } from '@commander-js/extra-typings';
import { Command, Option } from 'commander';
import { outputOf, runMain, secretFlagRefusal, SECRET_FLAGS, type Runtime } from './app/main.js';
import type { Dependencies } from './app/context.js';
import { declareGlobals } from './app/globals.js';
import type { VerbModule, VerbTable } from './app/verb.js';
import type { IOStreams } from './core/io.js';
import { processStreams } from './core/stdio.js';
import { VERSION } from './version.js';
// A group's table of verbs is a few lines of lazy imports: it comes with this file, so running a
// verb loads one module file (and waits for one import) fewer.
import * as profilesGroup from './commands/profiles/index.js';
import * as campaignsGroup from './commands/campaigns/index.js';
import * as linksGroup from './commands/links/index.js';
import * as storesGroup from './commands/stores/index.js';
import * as ordersGroup from './commands/orders/index.js';
import * as eventsGroup from './commands/events/index.js';
import * as refundsGroup from './commands/refunds/index.js';
import * as webhooksGroup from './commands/webhooks/index.js';

interface Entry {
  name: string;
  description: string;
  hidden?: true;
  /** a group's examples (a verb's are in its own help) */
  examples?: string[];
  load: () => Promise<VerbModule | { verbs: VerbTable }>;
}

const COMMANDS: Entry[] = [
  { name: 'login', description: 'check an API key with GET /me and save it in a profile', load: () => import('./commands/login.js') },
  { name: 'profiles', description: 'list, choose and remove stored profiles', examples: ['svc profiles ls', 'svc profiles use sandbox'], load: () => Promise.resolve(profilesGroup) },
  { name: 'me', description: 'show the calling key, account setup and usable brands (GET /me)', load: () => import('./commands/me.js') },
  { name: 'campaigns', description: 'browse campaigns', examples: ['svc campaigns ls', 'svc campaigns ls --status COMPLETED --all'], load: () => Promise.resolve(campaignsGroup) },
  {
    name: 'links',
    description: 'personal gift links: list, read, create, cancel',
    examples: ['svc links ls --status ACTIVE', 'svc links create --campaign <id> --name "Ada Lovelace"', 'svc links cancel <id> --reason duplicate'],
    load: () => Promise.resolve(linksGroup),
  },
  { name: 'stores', description: 'browse rewards stores', examples: ['svc stores ls', 'svc stores show <id> --brand <id> --country DE'], load: () => Promise.resolve(storesGroup) },
  { name: 'orders', description: 'rewards store orders: place, list, read', examples: ['svc orders place', 'svc orders ls --status SENT'], load: () => Promise.resolve(ordersGroup) },
  { name: 'events', description: 'the event feed', examples: ['svc events tail --follow', 'svc events tail --resume --type order.', 'svc events stats --since 2h --bucket 5m'], load: () => Promise.resolve(eventsGroup) },
  {
    name: 'refunds',
    description: "pay each cancelled order's refund exactly once, with a ledger",
    examples: ['svc refunds due', 'svc refunds run --exec ./refund.sh'],
    load: () => Promise.resolve(refundsGroup),
  },
  { name: 'trigger', description: 'sandbox only: make the sandbox produce an event of TYPE and print the events it caused', load: () => import('./commands/trigger.js') },
  {
    name: 'webhooks',
    description: 'test, sign, receive and replay webhooks',
    examples: ['svc webhooks test', 'svc webhooks listen --port 4242', 'svc webhooks replay ./deliveries --to http://localhost:3000/webhooks'],
    load: () => Promise.resolve(webhooksGroup),
  },
  { name: 'inspect', description: 'a link or order and its history from the event feed, oldest first', load: () => import('./commands/inspect.js') },
  { name: 'doctor', description: 'check config, key, API, clock and webhook setup; one line each with a fix', load: () => import('./commands/doctor.js') },
  { name: 'verify-signature', description: 'check a Svc-Signature header against a payload and explain why it fails', load: () => import('./commands/verify-signature.js') },
  { name: 'mcp', description: 'serve the API and svc\'s support tools to an AI assistant (Model Context Protocol over stdio)', load: () => import('./commands/mcp.js') },
  { name: 'api', description: 'make a raw API call with auth, retries, idempotency and error rendering', load: () => import('./commands/api.js') },
  { name: 'completion', description: 'print a shell completion script', load: () => import('./commands/completion.js') },
  { name: '__complete', description: 'print completion candidates, one a line', hidden: true, load: () => import('./commands/complete.js') },
  { name: 'sandbox', description: 'run the local, stateful sandbox of the whole API', load: () => import('./commands/sandbox.js') },
];

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** A hidden global flag that refuses its value while commander parses it (see secretFlagRefusal). */
function secretFlag(flag: string): Option {
  return new Option(`${flag} <value>`).hideHelp().argParser(() => {
    throw secretFlagRefusal(flag);
  });
}

/**
 * The root command with the global options and one node per command. A command's node is filled in
 * (its verbs, flags, help and action) by the preSubcommand hook, just before commander hands it
 * the rest of the arguments; `tree()` fills in every node (completions, `help`).
 */
export function buildProgram(runtime: Runtime): { program: Command; tree: () => Promise<Command> } {
  const program = new Command('svc')
    .description('Work with the Personal Gift Links and Rewards Stores API: links, stores, orders, events and webhooks.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help');
  declareGlobals(typed(program));
  program
    .showSuggestionAfterError(true)
    // Commander's parse errors are printed by the app, in the same shape as every other error; every
    // node made below inherits this (commander copies it to subcommands as they are made).
    .exitOverride()
    .configureOutput(outputOf(runtime.streams))
    .addHelpText(
      'after',
      examples([
        'svc sandbox &                                  # a local API with seed data',
        'svc --profile sandbox me',
        'svc links create --campaign <id> --name "Ada Lovelace"',
        'svc events tail --follow',
        'svc links ls --all --jq \'select(.status == "ACTIVE") | .id\'',
        'svc orders ls --all -o json --jq \'group_by(.status) | map({status: .[0].status, n: length})\'',
        'HTTPS_PROXY=http://proxy.corp:3128 NO_PROXY=.internal svc me',
      ]) +
        '\nEnvironment: SVC_PROFILE, SVC_API_KEY, SVC_BASE_URL, SVC_CONFIG_DIR, SVC_WEBHOOK_SECRET, SVC_DEBUG, NO_COLOR,\n' +
        '  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and lower-case; loopback is never proxied), NODE_EXTRA_CA_CERTS (extra CA certificates, PEM)\n',
    );
  // Declared where one is given (a run without them spends nothing on them; the whole tree has them).
  for (const flag of SECRET_FLAGS) if (!runtime.argv || runtime.argv.some((arg) => arg === flag || arg.startsWith(`${flag}=`))) program.addOption(secretFlag(flag));

  const filled = new Map<Command, Promise<void>>();
  const fill = (entry: Entry, node: Command, verbName?: string): Promise<void> => {
    let done = filled.get(node);
    if (!done) {
      done = fillNode(runtime, entry, node, verbName);
      filled.set(node, done);
    }
    return done;
  };
  const declareNode = (entry: Entry) => {
    const node = program.command(entry.name, { hidden: entry.hidden }).description(entry.description);
    if (entry.examples) node.addHelpText('after', examples(entry.examples));
  };
  // A run that names its command first (`svc profiles ls`, as scripts call it) declares that one
  // only; anything else (global options first, help, a typo to suggest a name for) declares them all.
  const named = runtime.argv?.length ? COMMANDS.find((entry) => entry.name === runtime.argv![0]) : undefined;
  for (const entry of named ? [named] : COMMANDS) declareNode(entry);
  const entryOf = (node: Command) => COMMANDS.find((entry) => entry.name === node.name())!;
  // The verb a group is about to run, as commander read it: the word after the group's name.
  program.hook('preSubcommand', (root, node) => fill(entryOf(node), node, root.args[root.args.indexOf(node.name()) + 1]));
  const tree = async () => {
    for (const entry of COMMANDS) if (!program.commands.some((node) => node.name() === entry.name)) declareNode(entry);
    // In the order of COMMANDS, whichever was declared first.
    (program.commands as Command[]).sort((a, b) => COMMANDS.findIndex((entry) => entry.name === a.name()) - COMMANDS.findIndex((entry) => entry.name === b.name()));
    await Promise.all(program.commands.map((node) => fill(entryOf(node), node)));
    return program;
  };
  return { program, tree };
}

/** Declares a command's node: a verb's flags and action, or a group's verbs (only `verbName` when it names one). */
async function fillNode(runtime: Runtime, entry: Entry, node: Command, verbName?: string): Promise<void> {
  const loaded = await entry.load();
  if (!('verbs' in loaded)) {
    loaded.declare(typed(node));
    runtime.attach(node, loaded);
    return;
  }
  const names = verbName !== undefined && Object.hasOwn(loaded.verbs, verbName) ? [verbName] : Object.keys(loaded.verbs);
  const verbs = await Promise.all(names.map((name) => loaded.verbs[name]()));
  names.forEach((name, i) => {
    const command = node.command(name);
    verbs[i].declare(typed(command));
    runtime.attach(command, verbs[i]);
  });
}

/** A node as a verb declares on it: commander's own class, with the types of extra-typings (see app/verb.ts). */
const typed = (node: Command) => node as unknown as TypedCommand;

/** Runs svc with these arguments; returns the exit code. Only bin/ exits. Tests pass `deps` in place of the keyring, prompts or API client. */
export function main(argv: string[], streams: IOStreams = processStreams(), deps?: Dependencies): Promise<number> {
  return runMain(argv, streams, buildProgram, deps);
}

/** The whole tree, every verb declared, that runs nothing (the completion scripts, tests). */
export function commandTree(): Promise<Command> {
  return buildProgram(inertRuntime()).tree();
}

function inertRuntime(): Runtime {
  return { streams: processStreams(), signal: new AbortController().signal, attach: () => undefined };
}

/** Every command below `command`, depth first. */
export function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

/** The command reference and the man page (docs/reference/, docs/svc.1), for `npm run docs`. */
export async function referenceFiles(): Promise<import('./features/reference.js').ReferenceFiles> {
  const { renderReference } = await import('./features/reference.js');
  return renderReference(await commandTree());
}
