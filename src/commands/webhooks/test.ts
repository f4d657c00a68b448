/**
 * `svc webhooks test`: asks the service to send a signed ping to the key's webhook URL and shows
 * what the receiver answered. Exit 0 only when it answered 2xx, else 1.
 */
import type { ApiResponse } from '../../api/client.js';
import type { WebhookTestResult } from '../../api/types.js';
import { testWebhook } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import { FailureError } from '../../core/errors.js';
import type { Output } from '../../core/output.js';
import type { Command } from '@commander-js/extra-typings';
import { dryRunOption, examples } from '../declare.js';

export function declare(command: Command) {
  return command
    .description("send a signed ping to the key's webhook URL (POST /webhooks:test)")
    .addOption(dryRunOption())
    .addHelpText('after', examples('svc webhooks test', 'svc webhooks test --dry-run'));
}

export async function run(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const spinner = await ctx.io.spinner('Sending a ping to the key\'s webhook URL (the service waits up to 15 s for the receiver)');
  let response: ApiResponse<WebhookTestResult>;
  try {
    // The description gives this call no request body, so none is sent (a validating proxy refuses
    // one). Every call sends a real ping and the service never retries one, so neither does svc.
    response = await testWebhook(client, { signal: ctx.signal, retry: false });
  } finally {
    spinner.stop();
  }
  // --dry-run: the request was printed instead of sent; no ping went out.
  if (response.dryRun) return;
  const result = response.body;
  const output = await ctx.output();
  await output.object(result, (value) => renderResult(output, value));
  if (!delivered(result)) {
    const answered = typeof result?.responseStatus === 'number';
    const detail = answered ? `the receiver answered ${result.responseStatus}` : (result?.error ?? 'the receiver did not answer');
    const noUrl = !answered && /no webhook url/i.test(result?.error ?? '');
    throw new FailureError(
      `ping not delivered: ${detail}`,
      'webhook_not_delivered',
      noUrl ? "the key's webhook URL is set by the operator's team (in the sandbox: PATCH /_sandbox/keys/{name} {\"webhookUrl\": …})" : undefined,
    );
  }
}

export function delivered(result: WebhookTestResult): boolean {
  return typeof result?.responseStatus === 'number' && result.responseStatus >= 200 && result.responseStatus < 300;
}

function renderResult(output: Output, result: WebhookTestResult): string {
  const { chalk } = output;
  const status = result.responseStatus === null ? 'no response' : `answered ${result.responseStatus}`;
  if (delivered(result)) return chalk.green(`✓ ping delivered: the receiver ${status}`);
  return [chalk.red(`✗ ping not delivered: ${status}`), `  error: ${result.error ?? 'none given'}`].join('\n');
}
