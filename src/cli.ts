/**
 * The command tree. Every verb's code is imported only when that verb runs, so `svc --version`
 * and `svc --help` load commander and nothing else. One place turns errors into exit codes.
 */
import { Command, CommanderError, Option } from 'commander';
import { API_LIMITS as MAX, CAMPAIGN_STATUSES, LINK_STATUSES, ORDER_STATUSES } from './api/types.js';
import type { Context } from './core/context.js';
import { ExitCode, SvcError, errorLines, problemLine } from './core/errors.js';
import { terminalSafe, terminalSafeLine } from './core/sanitize.js';
import { RESOURCE_LABEL, fieldPaths, type Resource } from './api/resource-fields.js';
import { parseFieldList } from './core/fields.js';
import type { IOStreams } from './core/io.js';
import { VERSION } from './version.js';

/** What a verb module exports: parsing is done; `run` does the work and may return an exit code. */
export type VerbModule = { run: (ctx: Context, opts: never, args: string[]) => Promise<number | void> };
type Loader = () => Promise<VerbModule>;

interface RunState {
  exitCode: number;
  context?: Context;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/**
 * An option taking one of an API enum (from the API description): help lists the values and
 * completions offer them; the command checks the value itself (case-insensitively).
 */
function enumOption(flags: string, description: string, values: readonly string[]): Option {
  const option = new Option(flags, description);
  option.argChoices = [...values];
  return option;
}

const thousands = (n: number): string => n.toLocaleString('en-US');

/** `--fields a,b,c.d`, checked against the resource's fields while parsing (exit 2 before any request). */
function fieldsOption(resource: Resource): Option {
  return new Option('--fields <a,b.c>', 'only these fields, dotted paths for nested ones, in this order').argParser((value: string) => parseFieldList(value, fieldPaths(resource), RESOURCE_LABEL[resource]));
}

function listOptions(command: Command, resource: Resource): Command {
  return command
    .addOption(fieldsOption(resource))
    .option('--limit <n>', 'page size, 1-100 (default 25)')
    .option('--after <cursor>', 'start after this cursor (the previous page\'s nextCursor)')
    .option('--all', 'follow cursors to the end, streaming every item');
}

/**
 * Builds the command tree. `only` names the top-level command this run needs: the verbs of the
 * other groups are left out (they are not needed to parse this argv, and building them all is
 * measurable in start-up). Without `only` the whole tree is built (completions, help of `help`).
 */
export function buildProgram(streams: IOStreams, signal: AbortSignal, state: RunState, only?: string): Command {
  const action = (load: Loader) =>
    async function (this: Command, ...args: unknown[]): Promise<void> {
      const command = args[args.length - 1] as Command;
      const positionals = args.slice(0, -2).flatMap((value) => (Array.isArray(value) ? value : [value])) as string[];
      const { Context } = await import('./core/context.js');
      const context = new Context(command.optsWithGlobals(), streams, signal);
      state.context = context;
      const verb = await load();
      const code = await verb.run(context, command.opts() as never, positionals);
      state.exitCode = typeof code === 'number' ? code : ExitCode.ok;
    };

  const program = new Command('svc')
    .description('Work with the Personal Gift Links and Rewards Stores API: links, stores, orders, events and webhooks.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--profile <name>', 'stored profile to use').env('SVC_PROFILE'))
    .option('--base-url <url>', 'API base URL ending in /v1 (env SVC_BASE_URL); http:// only for loopback')
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a TTY, jsonl otherwise)').choices(['table', 'json', 'jsonl', 'csv']))
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--no-input', 'never prompt (implied when not on a TTY or CI is set)')
    .option('--debug', 'request and response lines on stderr, secrets redacted (also SVC_DEBUG=1)')
    .option('--timeout <seconds>', 'per-attempt response time-out (default 30)')
    .option('--max-retries <n>', 'retries for retryable failures (default 4)')
    .option('--rate <perMinute>', 'never exceed this many requests a minute (default 3000)')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      examples(
        'svc sandbox &                                  # a local API with seed data',
        'svc --profile sandbox me',
        'svc links create --campaign <id> --name "Ada Lovelace"',
        'svc events tail --follow',
      ) + '\nEnvironment: SVC_PROFILE, SVC_API_KEY, SVC_BASE_URL, SVC_CONFIG_DIR, SVC_WEBHOOK_SECRET, SVC_DEBUG, NO_COLOR\n',
    );

  const group = (name: string, description: string, usage: string[], define: (command: Command) => void) => {
    const command = program.command(name).description(description).addHelpText('after', examples(...usage));
    if (only === undefined || only === name) define(command);
  };

  program
    .command('login')
    .description('check an API key with GET /me and save it in a profile')
    .option('--api-key-stdin', 'read the API key from standard input instead of prompting')
    .option('--webhook-secret-stdin', 'also read the webhook secret from standard input (the line after the key)')
    .addHelpText('after', examples('svc login', 'printf "%s\\n" "$KEY" | svc login --profile ci --api-key-stdin', 'svc login --profile staging --base-url https://api.example.test/v1'))
    .action(action(() => import('./commands/auth/login.js')));

  group('profiles', 'list, choose and remove stored profiles', ['svc profiles ls', 'svc profiles use sandbox'], (profiles) => {
    profiles
      .command('ls')
      .description('list profiles: name, base URL, masked key, default marker')
      .addHelpText('after', examples('svc profiles ls', 'svc profiles ls -o json'))
      .action(action(() => import('./commands/profiles/ls.js')));
    profiles
      .command('use')
      .argument('<name>', 'profile name')
      .description('make a profile the default')
      .addHelpText('after', examples('svc profiles use sandbox'))
      .action(action(() => import('./commands/profiles/use.js')));
    profiles
      .command('rm')
      .argument('<name>', 'profile name')
      .description('remove a profile and its saved cursor')
      .addHelpText('after', examples('svc profiles rm staging'))
      .action(action(() => import('./commands/profiles/rm.js')));
  });

  program
    .command('me')
    .description('show the calling key, account setup and usable brands (GET /me)')
    .addOption(fieldsOption('me'))
    .addHelpText('after', examples('svc me', 'svc me -o json | jq .tenant.locales'))
    .action(action(() => import('./commands/me.js')));

  group('campaigns', 'browse campaigns', ['svc campaigns ls', 'svc campaigns ls --status COMPLETED --all'], (campaigns) => {
    listOptions(
      campaigns
        .command('ls')
        .description('list campaigns, sorted by name (GET /campaigns)')
        .option('--brand <id>', 'only this brand\'s campaigns')
        .addOption(enumOption('--status <status>', 'campaign status (default ACTIVE)', CAMPAIGN_STATUSES)),
      'campaign',
    )
      .addHelpText('after', examples('svc campaigns ls', 'svc campaigns ls --status COMPLETED --all'))
      .action(action(() => import('./commands/campaigns/ls.js')));
  });

  group('links', 'personal gift links: list, read, create, cancel', ['svc links ls --status ACTIVE', 'svc links create --campaign <id> --name "Ada Lovelace"', 'svc links cancel <id> --reason duplicate'], (links) => {
    listOptions(
      links
        .command('ls')
        .description('list links, newest first (GET /personal-links)')
        .option('--brand <id>', 'only this brand')
        .option('--campaign <id>', 'only this campaign')
        .addOption(enumOption('--status <status>', 'link status', LINK_STATUSES)),
      'link',
    )
      .addHelpText('after', examples('svc links ls --status ACTIVE', 'svc links ls --all | jq -r .id'))
      .action(action(() => import('./commands/links/ls.js')));
    links
      .command('get')
      .argument('<id>', 'link id')
      .description('read one link (GET /personal-links/{id})')
      .addOption(fieldsOption('link'))
      .addHelpText('after', examples('svc links get 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11'))
      .action(action(() => import('./commands/links/get.js')));
    links
      .command('create')
      .description('create a personal link for one player, or many with --from-file (POST /personal-links)')
      .option('--campaign <id>', 'campaign id (an ACTIVE campaign)')
      .option('--name <name>', `player's full name (max ${MAX.linkFullName})`)
      .option('--brand <id>', 'brand id, needed when the campaign has several usable brands')
      .option('--email <email>', `player's e-mail (max ${MAX.linkEmail})`)
      .option('--message <text>', `note shown on the claim page (max ${MAX.linkMessage})`)
      .option('--locale <locale>', 'language, one of the account\'s locales (default en-US)')
      .option('--field <field=value>', 'custom field answer by id or label; CHECKBOX takes true/false (repeatable)', collect)
      .option('--idempotency-key <key>', 'reuse a key to retry safely (default: a fresh UUID)')
      .option('--from-file <file>', 'bulk: CSV with a header row or JSON lines; - reads stdin')
      .option('--concurrency <n>', 'bulk: requests in flight at once (default 8)')
      .addHelpText(
        'after',
        examples(
          'svc links create                                   # asks for what is missing on a TTY',
          'svc links create --campaign <id> --name "Ada Lovelace" --field "VIP tier=Gold" --field "Marketing consent=true"',
          'svc links create --from-file players.csv > results.jsonl',
          'cat players.jsonl | svc links create --from-file -',
        ),
      )
      .action(action(() => import('./commands/links/create.js')));
    links
      .command('cancel')
      .argument('<id>', 'link id')
      .description('cancel a link this key created (POST /personal-links/{id}:cancel)')
      .option('--reason <text>', `why (max ${thousands(MAX.cancelReason)}; visible only to the team)`)
      .option('--idempotency-key <key>', 'retry safely with the same key')
      .option('-y, --yes', 'do not ask for confirmation')
      .addHelpText('after', examples('svc links cancel <id> --reason "sent to the wrong player"', 'svc links cancel <id> --reason duplicate --yes'))
      .action(action(() => import('./commands/links/cancel.js')));
  });

  group('stores', 'browse rewards stores', ['svc stores ls', 'svc stores show <id> --brand <id> --country DE'], (stores) => {
    listOptions(stores.command('ls').description('list stores, sorted by name (GET /reward-stores)').option('--brand <id>', 'only stores serving this brand'), 'store')
      .addHelpText('after', examples('svc stores ls', 'svc stores ls --brand <id> -o json'))
      .action(action(() => import('./commands/stores/ls.js')));
    stores
      .command('show')
      .argument('<id>', 'store id')
      .description('show a store for a brand, country and language: sections, gifts, prices, options')
      .option('--brand <id>', 'brand the store is read for (required)')
      .option('--country <cc>', 'delivery country, two letters (required)')
      .option('--locale <locale>', 'language (default en-US)')
      .addOption(fieldsOption('storeDetail'))
      .addHelpText('after', examples('svc stores show <id> --brand <id> --country DE --locale de-DE', 'svc stores show <id> --brand <id> --country US -o json | jq ".sections[].items[].name"'))
      .action(action(() => import('./commands/stores/show.js')));
  });

  group('orders', 'rewards store orders: place, list, read', ['svc orders place', 'svc orders ls --status SENT'], (orders) => {
    orders
      .command('place')
      .description('place a gift order for a player (POST /reward-store-orders)')
      .option('--store <id>', 'store id (a LIVE store)')
      .option('--brand <id>', 'brand the store was read for')
      .option('--product <id>', 'gift (productId)')
      .option('--variation <name=value>', 'one value per option dimension (repeatable)', collect)
      .option('--price <coins>', 'the coin price the player saw')
      .option('--country <cc>', 'delivery country, two letters')
      .option('--name <name>', `recipient name (max ${MAX.recipientName})`)
      .option('--phone <e164>', 'recipient phone in E.164, e.g. +4915112345678')
      .option('--street <street>', `street and number (max ${MAX.street})`)
      .option('--city <city>', `city (max ${MAX.city})`)
      .option('--postal-code <code>', `postal code, where the country uses one (max ${MAX.postalCode})`)
      .option('--email <email>', 'recipient e-mail for status updates')
      .option('--details <text>', `additional details (max ${thousands(MAX.additionalDetails)})`)
      .option('--locale <locale>', 'language for e-mails and the product name (default en-US)')
      .option('--field <field=value>', 'custom field answer by id or label (repeatable)', collect)
      .option('--from-file <file>', 'the request body as JSON (- reads stdin); the same file again replays, never orders twice')
      .option('--idempotency-key <key>', 'retry safely with the same key')
      .option('-y, --yes', 'place without the final confirmation on a TTY')
      .addHelpText(
        'after',
        examples(
          'svc orders place                                   # guided on a TTY',
          'svc orders place --store <id> --brand <id> --product <id> --variation size=M --variation color=black \\\n      --price 1100 --country DE --name "Ada Lovelace" --phone +4915112345678 --street "Hauptstr. 1" --city Berlin --postal-code 10115',
          'svc orders place --from-file order.json',
        ),
      )
      .action(action(() => import('./commands/orders/place.js')));
    listOptions(
      orders
        .command('ls')
        .description('list orders this key placed, newest first (GET /reward-store-orders)')
        .option('--brand <id>', 'only this brand')
        .option('--store <id>', 'only this store')
        .addOption(enumOption('--status <status>', 'order status', ORDER_STATUSES)),
      'order',
    )
      .addHelpText('after', examples('svc orders ls', 'svc orders ls --status CANCELLED --all | jq -r .id'))
      .action(action(() => import('./commands/orders/ls.js')));
    orders
      .command('get')
      .argument('<id>', 'order id')
      .description('read one order (GET /reward-store-orders/{id})')
      .addOption(fieldsOption('order'))
      .addHelpText('after', examples('svc orders get <id>'))
      .action(action(() => import('./commands/orders/get.js')));
  });

  group('events', 'the event feed', ['svc events tail --follow', 'svc events tail --resume --type order.', 'svc events stats --since 2h --bucket 5m'], (events) => {
    events
      .command('tail')
      .description('print the event feed; --follow keeps polling for new events')
      .option('-f, --follow', 'after catching up, poll for new events until Ctrl-C')
      .option('--after <cursor>', 'start after this cursor')
      .option('--resume', 'start from the cursor saved for this profile')
      .option('--type <type>', 'only this type, or a prefix such as order. (repeatable)', collect)
      .option('-n, --last <n>', 'print only the last N events of the catch-up')
      .option('--limit <n>', 'page size, 1-100')
      .option('--interval <seconds>', 'polling interval with --follow (default 2)')
      .option('--forward-to <url>', 'also POST each event, signed like a webhook, to this URL (https://, or http:// to loopback)')
      .option('--link <id>', 'only events of this link (data.id)')
      .option('--order <id>', 'only events of this order (data.id)')
      .option('--brand <id>', 'only events of this brand (data.brandId)')
      .option('--campaign <id>', 'only events of this campaign (data.campaignId)')
      .option('--since <time|duration>', 'only events that occurred at or after this: 15m, 2h, 7d or an ISO time')
      .option('--give-up-after <seconds>', 'with --follow: exit 5 once no poll has succeeded for this long (default: never)')
      .addOption(fieldsOption('event'))
      .addHelpText(
        'after',
        examples(
          'svc events tail --follow',
          'svc events tail --resume --type order.',
          'svc events tail --link <id> --since 7d',
          'svc events tail -f --give-up-after 300 --brand <id>      # for a supervisor: exit 5 after 5 minutes down',
          'svc events tail --type order.cancelled -o csv --fields occurredAt,data.id,data.coinPrice > cancelled.csv',
          'svc events tail -f --forward-to http://localhost:3000/webhooks',
        ),
      )
      .action(action(() => import('./commands/events/tail.js')));
    events
      .command('stats')
      .description('count feed events per type per time bucket: a chart on a terminal, JSON lines in a pipe')
      .option('--since <time|duration>', 'count events that occurred at or after this: 15m, 2h, 7d or an ISO time (default 24h)')
      .option('--bucket <duration>', 'width of each time bucket: 1m, 5m, 1h, 1d (default 1h)')
      .option('--type <type>', 'only this type, or a prefix such as order. (repeatable)', collect)
      .option('--brand <id>', 'only events of this brand (data.brandId)')
      .addHelpText(
        'after',
        examples(
          'svc events stats',
          'svc events stats --since 2h --bucket 5m --type order.cancelled',
          'svc events stats --since 7d --bucket 1d --brand <id>',
          'svc events stats --since 2026-11-21T00:00:00Z -o csv > counts.csv',
        ),
      )
      .action(action(() => import('./commands/events/stats.js')));
  });

  group('refunds', 'pay each cancelled order\'s refund exactly once, with a ledger', ['svc refunds due', 'svc refunds run --exec ./refund.sh'], (refunds) => {
    const ledgerOption = (command: Command) => command.option('--ledger <file>', 'ledger file (default: one per profile and base URL in the config directory)');
    ledgerOption(refunds.command('due'))
      .description('list cancelled orders not yet refunded, from the refund cursor; moves nothing')
      .option('--from-start', 'read the whole feed, not from the refund cursor (the ledger still holds)')
      .addHelpText('after', examples('svc refunds due', 'svc refunds due --from-start -o jsonl | jq -r .orderId'))
      .action(action(() => import('./commands/refunds/due.js')));
    ledgerOption(refunds.command('run'))
      .description('run CMD once per due refund (refund JSON on stdin, SVC_REFUND_* set) and record each in the ledger')
      .option('--exec <cmd>', 'the shell command that pays one refund; exit 0 means paid')
      .option('-f, --follow', 'keep reconciling every --interval seconds until Ctrl-C')
      .option('--interval <seconds>', 'reconcile interval with --follow (default 300)')
      .addHelpText(
        'after',
        examples(
          'svc refunds run --exec ./refund.sh',
          'svc refunds run --exec \'curl -fsS -X POST https://wallet.internal/refunds -d @-\' --follow',
          'svc refunds run --exec \'echo "$SVC_REFUND_ORDER_ID $SVC_REFUND_COIN_PRICE $SVC_REFUND_CURRENCY" >> paid.txt\'',
        ),
      )
      .action(action(() => import('./commands/refunds/run.js')));
    ledgerOption(refunds.command('mark'))
      .argument('<orderId...>', 'order ids refunded by other means')
      .description('record refunds made by other means, so run never pays them')
      .addHelpText('after', examples('svc refunds mark 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11'))
      .action(action(() => import('./commands/refunds/mark.js')));
    ledgerOption(refunds.command('ls'))
      .description('list the ledger: orderId, coinPrice, currency, eventId, refundedAt')
      .addHelpText('after', examples('svc refunds ls', 'svc refunds ls -o jsonl | jq -r .orderId'))
      .action(action(() => import('./commands/refunds/ls.js')));
  });

  program
    .command('trigger')
    .argument('<type>', 'event type: personal_link.created|approved|claimed|cancelled|expired, order.approved|cancelled|sent|completed, ping')
    .description('sandbox only: make the sandbox produce an event of TYPE and print the events it caused')
    .option('--link <id>', 'act on this link instead of creating one')
    .option('--order <id>', 'act on this order (placed by this key) instead of placing one')
    .addHelpText('after', examples('svc --profile sandbox trigger order.cancelled', 'svc trigger personal_link.approved', 'svc trigger order.sent --order <id>', 'svc trigger ping'))
    .action(action(() => import('./commands/trigger.js')));

  group('webhooks', 'test, sign and receive webhooks', ['svc webhooks test', 'svc webhooks listen --port 4242'], (webhooks) => {
    webhooks
      .command('test')
      .description('send a signed ping to the key\'s webhook URL (POST /webhooks:test)')
      .addHelpText('after', examples('svc webhooks test'))
      .action(action(() => import('./commands/webhooks/test.js')));
    webhooks
      .command('sign')
      .description('print a valid Svc-Signature header value for a payload')
      .option('--payload-file <file>', 'the raw body (- reads stdin)')
      .option('--secret-stdin', 'read the webhook secret from stdin (else SVC_WEBHOOK_SECRET, then the profile)')
      .option('--timestamp <unix>', 'signature time in unix seconds (default now)')
      .addHelpText('after', examples('svc webhooks sign --payload-file event.json', 'svc webhooks sign --payload-file event.json --timestamp 1763719200'))
      .action(action(() => import('./commands/webhooks/sign.js')));
    webhooks
      .command('listen')
      .description('run a local receiver that verifies and prints each delivery')
      .option('--port <port>', 'port to listen on (default 4242; 0 picks a free one)')
      .option('--path <path>', 'path to accept deliveries on (default /webhooks)')
      .option('--save-dir <dir>', 'write each delivery (receivedAt, headers, raw body, verdict) to DIR/<event id>.json; a repeated id gets <id>.2.json, never overwritten')
      .option('--forward-to <url>', 'relay verified deliveries unchanged (body and signature headers) to this URL; http:// only to loopback')
      .addHelpText(
        'after',
        examples(
          'svc webhooks listen --port 4242',
          'svc webhooks listen --path /hooks/svc -o jsonl',
          'svc webhooks listen --save-dir ./deliveries --forward-to http://localhost:3000/webhooks',
        ),
      )
      .action(action(() => import('./commands/webhooks/listen.js')));
  });

  program
    .command('inspect')
    .argument('<id>', 'a link id or an order id')
    .description('a link or order and its history from the event feed, oldest first')
    .option('--since <time|duration>', 'read events that occurred at or after this: 15m, 2h, 7d or an ISO time (default: the whole feed, 30 days)')
    .addOption(fieldsOption('event'))
    .addHelpText('after', examples('svc inspect <id>', 'svc inspect <id> --since 2d', 'svc inspect <id> -o json | jq .events[].type', 'svc inspect <id> -o csv --fields occurredAt,type,data.status'))
    .action(action(() => import('./commands/inspect.js')));

  program
    .command('doctor')
    .description('check config, key, API, clock and webhook setup; one line each with a fix')
    .option('--webhook', 'also send a test delivery to the key\'s webhook URL (POST /webhooks:test)')
    .addHelpText('after', examples('svc doctor', 'svc --profile staging doctor --webhook', 'svc doctor -o json | jq ".[] | select(.ok | not)"'))
    .action(action(() => import('./commands/doctor.js')));

  program
    .command('verify-signature')
    .description('check a Svc-Signature header against a payload and explain why it fails')
    .option('--header <value>', 'the Svc-Signature header value')
    .option('--payload-file <file>', 'the raw body as received (- reads stdin)')
    .option('--secret-stdin', 'read the webhook secret from stdin (else SVC_WEBHOOK_SECRET, then the profile)')
    .option('--tolerance <seconds>', 'allowed clock skew (default 300)')
    .option('--now <unix>', 'check as if the time were this (unix seconds)')
    .addHelpText('after', examples('svc verify-signature --header "t=1763719200,v1=5f…" --payload-file body.json', 'svc verify-signature --header "$SIG" --payload-file - < body.json'))
    .action(action(() => import('./commands/verify-signature.js')));

  program
    .command('api')
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'path relative to the base URL, e.g. /me')
    .description('make a raw API call with auth, retries, idempotency and error rendering')
    .addHelpText('after', '\nThe API is described in OpenAPI 3.1: openapi/openapi.yaml in the package (dist/openapi.json as JSON),\nand GET {baseUrl}/openapi.json on `svc sandbox` (no key needed).')
    .option('--data <json>', 'request body as JSON, or @file, or @- for stdin')
    .option('--paginate', 'follow nextCursor and print every item')
    .option('--idempotency-key <key>', 'Idempotency-Key for a POST (default: a fresh UUID)')
    .option('-i, --include', 'print the response status line and headers before the body')
    .option('-H, --header <header>', 'add a request header, "Name: value" (repeatable)', collect)
    .addHelpText('after', examples('svc api GET /me', 'svc api GET "/personal-links?status=ACTIVE" --paginate', 'svc api POST /personal-links --data @link.json', 'svc api -i GET /me', 'svc api GET /events -H "Accept-Language: de-DE"'))
    .action(action(() => import('./commands/api.js')));

  program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .description('print a shell completion script')
    .addHelpText('after', examples('svc completion bash > /etc/bash_completion.d/svc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish'))
    .action(async (shell: string) => {
      const { completionScript } = await import('./commands/completion.js');
      streams.stdout.write(completionScript(program, shell));
    });

  // For the completion scripts: values only svc can list (saved profile names; never keys).
  program
    .command('__complete', { hidden: true })
    .argument('<what>', 'profiles')
    .description('print completion candidates, one a line')
    .addHelpText('after', examples('svc __complete profiles'))
    .action(async (what: string) => {
      const [{ completionValues }, { ConfigStore }] = await Promise.all([import('./commands/completion.js'), import('./core/config.js')]);
      streams.stdout.write(await completionValues(what, () => ConfigStore.open(streams.env)));
    });

  program
    .command('sandbox')
    .description('run the local, stateful sandbox of the whole API')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port (default 4010; 0 picks a free one)')
    .option('--approval-required', 'new links and orders start as REQUESTED')
    .option('--rate-limit <perMinute>', 'requests a minute per key (default 3000)')
    .option('--faults <spec>', 'inject faults, e.g. errorRate=0.1,resetRate=0.05,rateLimitRate=0.05,delayMs=0')
    .option('--seed <n>', 'seed for the generated data and keys (default: the data of seed 1 with random keys)')
    .option('--no-profile', 'do not save the "sandbox" profile')
    .option('--verbose', 'log every request and webhook delivery on stderr (default: start-up line and errors only)')
    .option('--log <file>', 'append every request and webhook delivery to this file')
    .addHelpText('after', examples('svc sandbox', 'svc sandbox --port 0 --seed 7 --approval-required', 'svc sandbox --faults errorRate=0.2,resetRate=0.05', 'svc sandbox --log sandbox.log &'))
    .action(action(() => import('./commands/sandbox.js')));

  return program;
}

/** Runs svc with these arguments; returns the exit code. Only bin/ exits. */
export async function main(argv: string[], streams: IOStreams = process as unknown as IOStreams): Promise<number> {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that goes away (`svc links ls --all | head`) is not an error: stop quietly with 0.
  // The listener stays for the life of the process: help text may still be flushing after main returns.
  let brokenPipe = false;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') return;
    brokenPipe = true;
    controller.abort();
  };
  streams.stdout.on('error', onStdoutError);
  const state: RunState = { exitCode: ExitCode.ok };
  const secretFlag = secretFlagRefusal(argv);
  if (secretFlag) {
    streams.stderr.write(`${secretFlag}\n`);
    return ExitCode.usage;
  }
  const program = buildProgram(streams, controller.signal, state, commandNeeded(argv));
  // Commander's parse errors are printed by reportError, in the same shape as every other error.
  const output = { writeOut: (text: string) => streams.stdout.write(text), writeErr: (text: string) => streams.stderr.write(text), outputError: () => undefined };
  for (const command of [program, ...allCommands(program)]) command.exitOverride().configureOutput(output);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (brokenPipe || (error as NodeJS.ErrnoException)?.code === 'EPIPE') return ExitCode.ok;
    return reportError(error, streams, argv, state.context, controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await state.context?.close().catch(() => undefined);
  }
}

/** Width of the help text rendered at build time (dist/help.txt) for `svc --help`. */
export const PRERENDERED_HELP_WIDTH = 80;

/**
 * `svc --help` as commander renders it at PRERENDERED_HELP_WIDTH. The build writes it to
 * dist/help.txt so the shim can answer `svc --help` without loading the CLI (a test keeps it current).
 */
export function rootHelp(): string {
  const program = buildProgram(process as unknown as IOStreams, new AbortController().signal, { exitCode: ExitCode.ok }, '');
  let text = '';
  program.configureHelp({ helpWidth: PRERENDERED_HELP_WIDTH }).configureOutput({ writeOut: (chunk) => (text += chunk) });
  program.outputHelp();
  return text;
}

const GLOBAL_VALUE_OPTIONS = new Set(['--profile', '--base-url', '-o', '--output', '--timeout', '--max-retries', '--rate']);

/** The top-level command an argv names ('' for none); undefined when the whole tree is needed. */
function commandNeeded(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (GLOBAL_VALUE_OPTIONS.has(arg)) i++;
    else if (arg === '--') return undefined;
    else if (!arg.startsWith('-')) return arg === 'help' || arg === 'completion' ? undefined : arg;
  }
  return '';
}

export function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

function reportError(error: unknown, streams: IOStreams, argv: string[], context: Context | undefined, signal: AbortSignal): number {
  const jsonErrors = wantsJsonErrors(argv, context);
  // `error:` in red where a person watches stderr and colour is on (the rest stays plain).
  const forced = streams.env.FORCE_COLOR !== undefined && streams.env.FORCE_COLOR !== '0' && streams.env.FORCE_COLOR !== 'false';
  const red = !jsonErrors && streams.env.NO_COLOR === undefined && !argv.includes('--no-color') && (forced || Boolean(streams.stderr.isTTY));
  const write = (line: string) => streams.stderr.write(`${red ? line.replace(/^error:/, '\x1b[31merror:\x1b[39m') : line}\n`);
  const json = (problem: unknown) => problemLine(problem, Boolean(streams.stderr.isTTY));
  if (error instanceof CommanderError) {
    // Help and --version end with code 0; help shown for a bare group is a usage error; so is every parse error.
    if (error.exitCode === 0) return ExitCode.ok;
    if (error.code === 'commander.help') {
      // A group named without a verb (`svc links`): its help is already on stderr; say what is missing.
      write(jsonErrors ? JSON.stringify({ code: 'usage_error', detail: 'missing command' }) : 'error: usage_error: missing command (see the list above)');
      return ExitCode.usage;
    }
    const [detail, ...more] = scrubArgvValues(error.message, argv).replace(/^error: /, '').split('\n');
    if (jsonErrors) write(json({ code: 'usage_error', detail }));
    else write([`error: usage_error: ${terminalSafeLine(detail)}`, ...more.map((line) => `hint: ${terminalSafeLine(line.replace(/^\((.*)\)$/, '$1'))}`)].join('\n'));
    return ExitCode.usage;
  }
  const debug = context?.debugEnabled || argv.includes('--debug') || streams.env.SVC_DEBUG === '1';
  const promptExit = error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
  if (promptExit || (signal.aborted && !(error instanceof SvcError))) {
    if (jsonErrors) write(JSON.stringify({ code: 'interrupted', detail: 'interrupted' }));
    return ExitCode.interrupted;
  }
  if (error instanceof SvcError) {
    // Ctrl-C is the user's own doing: exit 130 without an error line.
    if (error.exitCode === ExitCode.interrupted && !jsonErrors) return error.exitCode;
    if (jsonErrors) write(json(error.toProblem()));
    else for (const line of errorLines(error)) write(line);
    if (debug && error.stack) write(terminalSafe(error.stack));
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(jsonErrors ? json({ code: 'internal_error', detail: message }) : `error: internal_error: ${terminalSafeLine(message)}`);
  if (debug && error instanceof Error && error.stack) write(terminalSafe(error.stack));
  else write('hint: run again with --debug for details, and report it if it persists');
  return ExitCode.refused;
}

/** Flags people try for secrets; a secret is never a flag value (shell history, `ps`), so these are refused. */
const SECRET_FLAGS = /^--(api-key|apikey|key|webhook-secret|secret|token)(=|$)/;

/**
 * `svc login --api-key=VALUE` (or `--api-key VALUE`) refused before commander sees it, so VALUE is
 * never repeated. The line names the flag only.
 */
function secretFlagRefusal(argv: string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    const match = SECRET_FLAGS.exec(arg);
    if (!match) continue;
    const flag = `--${match[1]}`;
    const pipe = flag.includes('secret') ? 'printf "%s\\n%s\\n" "$KEY" "$SECRET" | svc login --api-key-stdin --webhook-secret-stdin' : 'printf "%s\\n" "$KEY" | svc login --api-key-stdin';
    const detail = `${flag}: secrets are never taken as flag values (they would stay in shell history and process lists); the value was not used`;
    const hint = `pipe it instead: ${pipe}`;
    return wantsJsonErrors(argv, undefined) ? JSON.stringify({ code: 'usage_error', detail, hint }) : `error: usage_error: ${detail}\nhint: ${hint}`;
  }
  return undefined;
}

/** A parse error never repeats what followed an `=` in an argument (it may be a secret typed in the wrong place). */
function scrubArgvValues(message: string, argv: string[]): string {
  let scrubbed = message;
  for (const arg of argv) {
    const at = arg.indexOf('=');
    if (arg.startsWith('-') && at > 0 && at < arg.length - 1) scrubbed = scrubbed.split(arg).join(`${arg.slice(0, at)}=…`);
  }
  return scrubbed;
}

function wantsJsonErrors(argv: string[], context: Context | undefined): boolean {
  if (context?.options.output) return context.format === 'json' || context.format === 'jsonl';
  const at = argv.findIndex((arg) => arg === '-o' || arg === '--output');
  const value = at >= 0 ? argv[at + 1] : argv.find((arg) => arg.startsWith('--output='))?.slice(9);
  return value === 'json' || value === 'jsonl';
}
