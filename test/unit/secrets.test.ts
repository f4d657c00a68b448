import { describe, expect, it } from 'vitest';
import { maskKey, redact } from '../../src/api/keys.js';
import { validateBaseUrl } from '../../src/core/config.js';
import { UsageError } from '../../src/core/errors.js';

describe('masking and redaction', () => {
  it('masks keys as svc_live_…abcd', () => {
    expect(maskKey('svc_live_0123456789abcdefabcd')).toBe('svc_live_…abcd');
    expect(maskKey(undefined)).toBe('');
    expect(maskKey('short')).toBe('…');
  });

  it('redacts keys and secret members from text', () => {
    const secret = 'a'.repeat(64);
    const text = `Authorization: Bearer svc_live_XyZ123456789 {"apiKey":"svc_live_XyZ123456789","webhookSecret":"${secret}"} ${secret}`;
    const out = redact(text, [secret]);
    expect(out).not.toContain('svc_live_XyZ123456789');
    expect(out).not.toContain(secret);
    expect(out).toContain('svc_live_…6789');
  });
});

describe('base URL', () => {
  it('accepts https and loopback http', () => {
    expect(validateBaseUrl('https://api.example.test/v1/')).toBe('https://api.example.test/v1');
    expect(validateBaseUrl('http://127.0.0.1:4010/v1')).toBe('http://127.0.0.1:4010/v1');
    expect(validateBaseUrl('http://localhost:4010/v1')).toBe('http://localhost:4010/v1');
    expect(validateBaseUrl('http://[::1]:4010/v1')).toBe('http://[::1]:4010/v1');
  });

  it('refuses plain http to other hosts and non-URLs', () => {
    expect(() => validateBaseUrl('http://api.example.test/v1')).toThrow(UsageError);
    expect(() => validateBaseUrl('http://10.0.0.1/v1')).toThrow(/loopback/);
    expect(() => validateBaseUrl('ftp://x/v1')).toThrow(UsageError);
    expect(() => validateBaseUrl('not a url')).toThrow(UsageError);
    expect(() => validateBaseUrl('https://api.example.test')).toThrow(/must end in \/v1/);
    expect(() => validateBaseUrl('https://user:secret@api.example.test/v1')).toThrow(/user name or password/);
  });
});

describe('personal data in debug output', () => {
  it('redacts recipient, names, e-mails and phones from JSON bodies', async () => {
    const { redactPersonal } = await import('../../src/core/secrets.js');
    const body = JSON.stringify({
      storeId: 's',
      coinPrice: '1200',
      recipient: { name: 'Ada Lovelace', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', country: 'DE' } },
    });
    const out = redactPersonal(body);
    expect(out).toContain('"coinPrice":"1200"');
    for (const personal of ['Ada Lovelace', '+4915112345678', 'Hauptstr. 1', 'Berlin']) expect(out).not.toContain(personal);
    expect(redactPersonal('{"fullName":"Ada","email":"a@b.co","campaignId":"c"}')).toBe('{"fullName":"[redacted]","email":"[redacted]","campaignId":"c"}');
    expect(redactPersonal('not json')).toBe('not json');
  });
});
