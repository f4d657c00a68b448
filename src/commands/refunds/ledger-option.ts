import type { Command } from 'commander';

/** `--ledger FILE`, which every refunds verb takes. */
export function ledgerOption(command: Command): Command {
  return command.option('--ledger <file>', 'ledger file (default: one per profile and base URL in the config directory)');
}
