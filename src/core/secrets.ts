/** Masking and redaction: keys and webhook secrets never reach a screen or a log in full. */

const KEY_PREFIX = 'svc_live_';

/** `svc_live_…abcd`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string | undefined | null): string {
  if (!key) return '';
  const tail = key.length > 12 ? key.slice(-4) : '';
  return key.startsWith(KEY_PREFIX) ? `${KEY_PREFIX}…${tail}` : `…${tail}`;
}

const KEY_PATTERN = /svc_live_[A-Za-z0-9_-]+/g;
const SECRET_FIELDS = /("(?:apiKey|webhookSecret|secret|authorization)"\s*:\s*")[^"]*(")/gi;

/** Removes API keys and secret-bearing JSON members from a text before it is logged. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(KEY_PATTERN, (key) => maskKey(key)).replace(SECRET_FIELDS, '$1[redacted]$2');
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/** Request members that carry a player's personal data. */
const PERSONAL_FIELDS = new Set(['recipient', 'fullName', 'email', 'phone', 'additionalDetails', 'message']);

/** A JSON body with every personal member replaced by "[redacted]"; other text is returned as it is. */
export function redactPersonal(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), (key, value) => (PERSONAL_FIELDS.has(key) ? '[redacted]' : value));
  } catch {
    return body;
  }
}
