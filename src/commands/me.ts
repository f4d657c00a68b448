import { getMe } from '../api/resources.js';
import type { Context } from '../app/context.js';
import { maskKey } from '../api/keys.js';
import type { Command } from '@commander-js/extra-typings';
import { examples, fieldsOption } from './declare.js';

export function declare(command: Command) {
  return command
    .description('show the calling key, account setup and usable brands (GET /me)')
    .addOption(fieldsOption('me'))
    .addHelpText('after', examples('svc me', 'svc me -o json | jq .tenant.locales', 'svc me --jq \'.brands[] | "\\(.id) \\(.name)"\'      # no jq installed needed'));
}

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const me = (await getMe(client, { signal: ctx.signal })).body;
  const output = await ctx.output();
  const profile = await ctx.profile();
  await output.object(me, async (value) => {
    const { chalk } = output;
    const lines = [
      ...output.details([
        { label: 'Key', value: `${value.key?.name ?? ''} (${maskKey(profile.apiKey)})` },
        { label: 'Scopes', value: (value.key?.scopes ?? []).join(', ') },
        { label: 'Webhook URL', value: value.key?.webhookUrl ?? 'none', whole: true, paint: value.key?.webhookUrl ? undefined : chalk.dim },
        { label: 'Account', value: value.tenant?.id ?? '', whole: true },
        { label: 'Locales', value: (value.tenant?.locales ?? []).join(', ') },
        { label: 'Approval', value: value.tenant?.approvalRequired ? 'required for new links and orders' : 'not required' },
        { label: 'Environment', value: value.environment ?? '' },
        { label: 'Base URL', value: client.baseUrl, whole: true },
      ]),
      '',
      chalk.bold('Brands'),
      await output.table([{ header: 'ID', value: (b) => b.id, id: true }, { header: 'Name', value: (b) => b.name }], value.brands ?? []),
    ];
    const fields = value.tenant?.customFields ?? [];
    if (fields.length > 0) {
      lines.push(
        chalk.bold('Custom fields'),
        await output.table(
          // What --field needs stays whole (type, required flag, every option, wrapping when long);
          // the id gives way on a narrow terminal (--field takes the label as well).
          [
            { header: 'Label', value: (f) => f.label },
            { header: 'Type', value: (f) => f.type, id: true },
            { header: 'Required', value: (f) => (f.required ? 'yes' : 'no'), id: true },
            { header: 'Options', value: (f) => (f.options ?? []).join(', '), wrap: true },
            { header: 'ID', value: (f) => f.id, id: true, priority: 1 },
          ],
          fields,
        ),
      );
    }
    return lines.join('\n');
  });
}
