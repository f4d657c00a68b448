/**
 * Checks each delivery's signature with the webhook secret, as the spec prescribes, and marks
 * repeated event ids. A secret from the profile is read again when a signature does not match (at
 * most once a second): a sandbox restarted meanwhile saves a new one, and the listener goes on with
 * it instead of refusing every delivery from then on.
 *
 * Hostile input costs bounded time: the signature (one HMAC) is checked before anything else; the
 * diagnosis of a failure (which re-signs the body with known mistakes) runs only for small bodies and
 * within a time budget.
 */
import type { SvcEvent } from '../../api/types.js';
import type { Context } from '../../app/context.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { verifySignature } from '../../core/signature.js';
import { diagnose } from '../../core/signature-diagnose.js';
import { currentProfileSecret, type ResolvedSecret } from '../webhook-secret.js';
import { Budget } from './budget.js';
import type { Delivery, Verdict } from './delivery.js';

/** A failed signature is diagnosed only for bodies up to this size ... */
const DIAGNOSE_MAX_BYTES = 64 * 1024;
/** ... within this time per delivery ... */
const DIAGNOSE_BUDGET_MS = 50;
/** ... and within this much diagnosis time per second overall, so a stream of forgeries cannot stall good deliveries. */
const DIAGNOSE_BUDGET_PER_SECOND_MS = 200;
/** How many event ids are remembered for duplicate marking (oldest forgotten first). */
const REMEMBERED_IDS = 10_000;

/** What a failed check means, where no known mistake explains it. */
const REASON_TEXT: Record<string, string> = {
  no_matching_signature: 'no v1 signature matches this body with the webhook secret',
  timestamp_outside_tolerance: 'the signature time t is too far from this machine\'s clock',
};

export class Verifier {
  private secret: string;
  private readonly diagnosis = new Budget(DIAGNOSE_BUDGET_PER_SECOND_MS);
  private readonly seen = new Set<string>();
  private lastReread = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: Context,
    private readonly source: ResolvedSecret,
  ) {
    this.secret = source.secret;
  }

  async judge(delivery: Delivery): Promise<{ verdict: Verdict; event?: SvcEvent }> {
    const header = delivery.headers['svc-signature'];
    if (typeof header !== 'string') return { verdict: reject('missing_signature', 'no Svc-Signature header') };
    // The cheap check first: one HMAC. Only a failure is diagnosed, and only within bounds.
    let verification = this.verify(header, delivery.body);
    if (!verification.valid && verification.reason === 'no_matching_signature' && (await this.reread())) verification = this.verify(header, delivery.body);
    if (!verification.valid) {
      let detail = verification.header.problems.join('; ') || REASON_TEXT[verification.reason!] || verification.reason!;
      if (delivery.body.length <= DIAGNOSE_MAX_BYTES && this.diagnosis.available()) {
        detail = this.diagnose(verification, delivery.body) ?? detail;
      }
      return { verdict: reject(verification.reason!, detail) };
    }
    let parsed: SvcEvent;
    try {
      parsed = JSON.parse(delivery.body.toString('utf8')) as SvcEvent;
    } catch {
      return { verdict: reject('invalid_json', 'the body is not JSON') };
    }
    const duplicate = delivery.id !== '' && this.seen.has(delivery.id);
    remember(this.seen, delivery.id);
    return { verdict: { ok: true, status: 200, ...(duplicate ? { duplicate: true } : {}) }, event: parsed };
  }

  /** The likely cause of a failed check, within the time budget; never throws. */
  private diagnose(verification: ReturnType<typeof verifySignature>, body: Buffer): string | undefined {
    const started = performance.now();
    try {
      return diagnose({ verification, payload: body, secret: this.secret, deadline: started + DIAGNOSE_BUDGET_MS })[0]?.message;
    } catch {
      return undefined;
    } finally {
      this.diagnosis.spend(performance.now() - started);
    }
  }

  private verify(header: string, body: Buffer) {
    return verifySignature({ header, payload: body, secret: this.secret, now: Math.floor(Date.now() / 1000) });
  }

  /** Whether the profile now holds another secret (taken from here on). */
  private async reread(): Promise<boolean> {
    if (!this.source.profile || performance.now() - this.lastReread < 1_000) return false;
    this.lastReread = performance.now();
    // A config that cannot be read now (being rewritten, or broken) keeps the secret in use.
    const current = await currentProfileSecret(this.ctx, this.source.profile).catch(() => undefined);
    if (current === undefined || current === this.secret) return false;
    this.secret = current;
    this.ctx.io.info(`note: the webhook secret of profile ${terminalSafeLine(this.source.profile)} changed (a restarted sandbox?); verifying with the new one`);
    return true;
  }
}

function reject(error: string, detail: string): Verdict {
  return { ok: false, status: 400, error, detail };
}

function remember(seen: Set<string>, id: string): void {
  if (id === '') return;
  seen.delete(id);
  seen.add(id);
  if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
}
