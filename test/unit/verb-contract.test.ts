/**
 * The typed verb contract (src/app/verb.ts): a verb's options and arguments are inferred from what its
 * `declare` declares, so a renamed or retyped flag fails type-checking (`tsc --noEmit`, part of npm
 * test, checks the type-level expectations here); and tests can stop after parsing (test/helpers/parse.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { GlobalOptions } from '../../src/app/context.js';
import type { ArgsOf, OptionsOf, VerbModule } from '../../src/app/verb.js';
import type * as cancel from '../../src/commands/links/cancel.js';
import type * as replay from '../../src/commands/webhooks/replay.js';
import type * as linksLs from '../../src/commands/links/ls.js';
import { parseVerb } from '../helpers/parse.js';

const ID = '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11';

/** Every verb module under src/commands (a module that exports `run`). */
interface Verbs {
  api: typeof import('../../src/commands/api.js');
  campaigns_ls: typeof import('../../src/commands/campaigns/ls.js');
  complete: typeof import('../../src/commands/complete.js');
  completion: typeof import('../../src/commands/completion.js');
  doctor: typeof import('../../src/commands/doctor.js');
  events_stats: typeof import('../../src/commands/events/stats.js');
  events_tail: typeof import('../../src/commands/events/tail.js');
  inspect: typeof import('../../src/commands/inspect.js');
  links_cancel: typeof import('../../src/commands/links/cancel.js');
  links_create: typeof import('../../src/commands/links/create.js');
  links_get: typeof import('../../src/commands/links/get.js');
  links_ls: typeof import('../../src/commands/links/ls.js');
  login: typeof import('../../src/commands/login.js');
  me: typeof import('../../src/commands/me.js');
  orders_get: typeof import('../../src/commands/orders/get.js');
  orders_ls: typeof import('../../src/commands/orders/ls.js');
  orders_place: typeof import('../../src/commands/orders/place.js');
  profiles_ls: typeof import('../../src/commands/profiles/ls.js');
  profiles_rm: typeof import('../../src/commands/profiles/rm.js');
  profiles_use: typeof import('../../src/commands/profiles/use.js');
  refunds_due: typeof import('../../src/commands/refunds/due.js');
  refunds_ls: typeof import('../../src/commands/refunds/ls.js');
  refunds_mark: typeof import('../../src/commands/refunds/mark.js');
  refunds_run: typeof import('../../src/commands/refunds/run.js');
  sandbox: typeof import('../../src/commands/sandbox.js');
  stores_ls: typeof import('../../src/commands/stores/ls.js');
  stores_show: typeof import('../../src/commands/stores/show.js');
  trigger: typeof import('../../src/commands/trigger.js');
  verify_signature: typeof import('../../src/commands/verify-signature.js');
  webhooks_listen: typeof import('../../src/commands/webhooks/listen.js');
  webhooks_replay: typeof import('../../src/commands/webhooks/replay.js');
  webhooks_sign: typeof import('../../src/commands/webhooks/sign.js');
  webhooks_test: typeof import('../../src/commands/webhooks/test.js');
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The options `run` takes (a run that takes none takes whatever its declaration gives). */
type RunOptions<M extends VerbModule> = Parameters<M['run']> extends [unknown, infer Options, ...unknown[]] ? Options : OptionsOf<M['declare']>;
type RunArgs<M extends VerbModule> = Parameters<M['run']> extends [unknown, unknown, infer Args] ? Args : ArgsOf<M['declare']>;

describe('a verb\'s options and arguments are typed from its declaration', () => {
  it('infers each flag, with its type, and the positional arguments (a variadic one as an array)', () => {
    expectTypeOf<OptionsOf<typeof cancel.declare>>().toEqualTypeOf<{ reason?: string; idempotencyKey?: string; yes?: true; dryRun?: true }>();
    expectTypeOf<ArgsOf<typeof cancel.declare>>().toEqualTypeOf<[string]>();
    expectTypeOf<ArgsOf<typeof replay.declare>>().toEqualTypeOf<[string[]]>();
    // --fields is parsed into paths while parsing; --all is a flag without a value.
    expectTypeOf<OptionsOf<typeof linksLs.declare>['fields']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<OptionsOf<typeof linksLs.declare>['all']>().toEqualTypeOf<true | undefined>();
  });

  it('the global options are typed the same way, from their declaration (src/app/globals.ts)', () => {
    expectTypeOf<GlobalOptions['output']>().toEqualTypeOf<'table' | 'json' | 'jsonl' | 'csv' | undefined>();
    expectTypeOf<GlobalOptions['color']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<GlobalOptions['timeout']>().toEqualTypeOf<string | undefined>();
  });

  it('a flag the verb does not declare is a type error', () => {
    const opts: OptionsOf<typeof cancel.declare> = { reason: 'duplicate' };
    // @ts-expect-error links cancel declares --reason, not --why
    expect(opts.why).toBeUndefined();
    // @ts-expect-error --reason takes text
    const retyped: OptionsOf<typeof cancel.declare> = { reason: 3 };
    expect(retyped).toEqual({ reason: 3 });
  });

  it('every verb\'s run takes exactly the options and arguments its declare gives', () => {
    expectTypeOf<{ [Name in keyof Verbs]: Equal<RunOptions<Verbs[Name]>, OptionsOf<Verbs[Name]['declare']>> }>().toEqualTypeOf<{ [Name in keyof Verbs]: true }>();
    expectTypeOf<{ [Name in keyof Verbs]: Equal<RunArgs<Verbs[Name]>, ArgsOf<Verbs[Name]['declare']>> }>().toEqualTypeOf<{ [Name in keyof Verbs]: true }>();
  });
});

describe('each verb module', () => {
  const root = join(import.meta.dirname, '../../src/commands');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && /^export async function run\(/m.test(readFileSync(join(root, file), 'utf8')))
    .map((file) => relative(root, join(root, file)).replace(/\\/g, '/'))
    .sort();

  it('is listed above for the type-level check', () => {
    const listed: (keyof Verbs)[] = ['api', 'campaigns_ls', 'complete', 'completion', 'doctor', 'events_stats', 'events_tail', 'inspect', 'links_cancel', 'links_create', 'links_get', 'links_ls', 'login', 'me', 'orders_get', 'orders_ls', 'orders_place', 'profiles_ls', 'profiles_rm', 'profiles_use', 'refunds_due', 'refunds_ls', 'refunds_mark', 'refunds_run', 'sandbox', 'stores_ls', 'stores_show', 'trigger', 'verify_signature', 'webhooks_listen', 'webhooks_replay', 'webhooks_sign', 'webhooks_test'];
    expect(files.map((file) => file.replace(/\.ts$/, '').replace(/[/-]/g, '_'))).toEqual(listed);
  });

  it('declares on the command it is given and returns it (the type of the chain is what run gets)', async () => {
    for (const file of files) {
      const verb = (await import(join(root, file))) as VerbModule;
      const command = new Command('verb');
      expect(verb.declare(command as never), file).toBe(command);
    }
  });
});

describe('parseVerb stops after parsing', () => {
  it('returns the options and arguments the verb would run with', async () => {
    const parsed = await parseVerb<typeof cancel.declare>(['links', 'cancel', ID, '--reason', 'duplicate', '--yes']);
    expect(parsed.options).toEqual({ reason: 'duplicate', yes: true });
    expect(parsed.args).toEqual([ID]);
  });

  it('hands a variadic argument over as one array, and the global options with the verb\'s', async () => {
    const parsed = await parseVerb<typeof replay.declare>(['-o', 'json', 'webhooks', 'replay', 'a.json', 'dir', '--to', 'http://127.0.0.1:3000/hook']);
    expect(parsed.args).toEqual([['a.json', 'dir']]);
    expect(parsed.options).toEqual({ to: 'http://127.0.0.1:3000/hook' });
    expect(parsed.globals).toMatchObject({ output: 'json', to: 'http://127.0.0.1:3000/hook' });
  });

  it('rejects with commander\'s error for an unknown flag', async () => {
    await expect(parseVerb(['links', 'cancel', ID, '--why', 'x'])).rejects.toThrow("error: unknown option '--why'");
  });
});
