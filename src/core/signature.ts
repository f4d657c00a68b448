import { createHmac } from 'node:crypto';

/** The v1 signature of the webhook scheme: hex HMAC-SHA256 of `<t>.<raw body>`, keyed by the secret's text bytes. */
export function computeSignature(secret: string, timestamp: number | string, payload: string | Buffer): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`);
  hmac.update(payload);
  return hmac.digest('hex');
}

/** A complete `Svc-Signature` header value for one payload. */
export function signatureHeader(secret: string, timestamp: number, payload: string | Buffer): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, payload)}`;
}
