import type { Command } from '@commander-js/extra-typings';

/** `--ledger FILE`, which every refunds verb takes. */
export function ledgerOption(command: Command) {
  return command.option('--ledger <file>', 'ledger file (default: one per profile and base URL in the config directory)');
}
