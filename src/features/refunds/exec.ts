/**
 * Runs the operator's refund command for one refund: through the shell, the refund as one JSON line
 * on stdin, SVC_REFUND_* in its environment. Its stdout and stderr go to svc's stderr (svc's stdout
 * carries data only). Resolves with how it ended; never throws for the command's own failure.
 */
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { currencyName, type Refund } from './refund.js';

export interface ExecOutcome {
  ok: boolean;
  /** for people: "exit 3", "killed by SIGTERM", "could not start: …" */
  how: string;
}

export function execRefund(command: string, refund: Refund, env: NodeJS.ProcessEnv, stderr: Writable): Promise<ExecOutcome> {
  return new Promise((resolve) => {
    const child = spawn(command, {
      shell: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...env,
        SVC_REFUND_ORDER_ID: refund.orderId,
        SVC_REFUND_COIN_PRICE: refund.coinPrice ?? '',
        SVC_REFUND_CURRENCY: currencyName(refund.currency),
      },
    });
    const relay = (chunk: Buffer) => stderr.write(chunk);
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    // A command that does not read its stdin closes it early: that is not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${JSON.stringify(refund)}\n`);
    child.on('error', (error) => resolve({ ok: false, how: `could not start: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ ok: true, how: 'exit 0' });
      else resolve({ ok: false, how: signal ? `killed by ${signal}` : `exit ${code}` });
    });
  });
}
