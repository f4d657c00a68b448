import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeLine } from '../../src/core/sanitize.js';

describe('terminalSafe', () => {
  it('shows every terminal-driving character as an escape and keeps the rest', () => {
    const hostile = 'a\x1b]0;title\x07b\x1b[2Jc\x1b]8;;http://x\x1b\\d\u009b31me\bf\rg\u202eh\u2066i\x7fj';
    expect(terminalSafe(hostile)).toBe(
      'a\\x1b]0;title\\x07b\\x1b[2Jc\\x1b]8;;http://x\\x1b\\d\\u009b31me\\x08f\\x0dg\\u202eh\\u2066i\\x7fj',
    );
  });

  it('keeps tabs, line feeds and ordinary Unicode', () => {
    expect(terminalSafe('Zoë\tÄrger\n日本 🎁')).toBe('Zoë\tÄrger\n日本 🎁');
  });

  it('turns null and numbers into text', () => {
    expect(terminalSafe(null)).toBe('');
    expect(terminalSafe(42)).toBe('42');
  });
});

describe('terminalSafeLine', () => {
  it('also shows line breaks and tabs, so one value stays on one line', () => {
    expect(terminalSafeLine('a\nb\tc\x1bd')).toBe('a\\nb\\tc\\x1bd');
  });
});
