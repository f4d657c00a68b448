/**
 * API keys, as the description defines them (bearerAuth x-key-format, generated as API_KEY): the
 * check of a key's form, masking, and redaction. Keys and webhook secrets never reach a screen or a
 * log in full.
 */
import { API_KEY } from './generated/constants.js';

const KEY_FORMAT = new RegExp(API_KEY.pattern, 'u');

/** Whether a text has the form of an API key (the service decides whether it is one). */
export function isApiKeyFormat(text: string): boolean {
  return KEY_FORMAT.test(text);
}

/** `svc_live_…`: how a key is named where it is not shown at all. */
export const MASKED_KEY = `${API_KEY.prefix}…`;

/** `svc_live_…abcd`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string | undefined | null): string {
  if (!key) return '';
  const tail = key.length > 12 ? key.slice(-4) : '';
  return key.startsWith(API_KEY.prefix) ? `${MASKED_KEY}${tail}` : `…${tail}`;
}

// Wider than the key's characters: a key pasted with stray `_` or `-` is hidden whole all the same.
const KEY_IN_TEXT = new RegExp(`${API_KEY.prefix}[${API_KEY.characters}_-]+`, 'gu');
const SECRET_FIELDS = /("(?:apiKey|webhookSecret|secret|authorization)"\s*:\s*")[^"]*(")/gi;

/** Removes API keys and secret-bearing JSON members from a text before it is logged. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(KEY_IN_TEXT, (key) => maskKey(key)).replace(SECRET_FIELDS, '$1[redacted]$2');
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  }
  return out;
}
