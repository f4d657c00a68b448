import type { Me } from '../api/types.js';
import type { Context } from '../core/context.js';
import { maskKey } from '../core/secrets.js';

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const me = await client.get<Me>('/me', { signal: ctx.signal });
  const output = await ctx.output();
  const profile = await ctx.profile();
  await output.object(me, async (value) => {
    const { chalk } = output;
    const lines = [
      `${chalk.bold('Key')}          ${value.key?.name ?? ''} (${maskKey(profile.apiKey)})`,
      `${chalk.bold('Scopes')}       ${(value.key?.scopes ?? []).join(', ')}`,
      `${chalk.bold('Webhook URL')}  ${value.key?.webhookUrl ?? chalk.dim('none')}`,
      `${chalk.bold('Account')}      ${value.tenant?.id ?? ''}`,
      `${chalk.bold('Locales')}      ${(value.tenant?.locales ?? []).join(', ')}`,
      `${chalk.bold('Approval')}     ${value.tenant?.approvalRequired ? 'required for new links and orders' : 'not required'}`,
      `${chalk.bold('Environment')}  ${value.environment ?? ''}`,
      `${chalk.bold('Base URL')}     ${client.baseUrl}`,
      '',
      chalk.bold('Brands'),
      await output.table([{ header: 'ID', value: (b) => b.id }, { header: 'Name', value: (b) => b.name }], value.brands ?? []),
    ];
    const fields = value.tenant?.customFields ?? [];
    if (fields.length > 0) {
      lines.push(
        chalk.bold('Custom fields'),
        await output.table(
          [
            { header: 'ID', value: (f) => f.id },
            { header: 'Label', value: (f) => f.label },
            { header: 'Type', value: (f) => f.type },
            { header: 'Required', value: (f) => (f.required ? 'yes' : 'no') },
            { header: 'Options', value: (f) => (f.options ?? []).join(', ') },
          ],
          fields,
        ),
      );
    }
    return lines.join('\n');
  });
}
