/**
 * cli-table3's measure in the build (src/core/table-width.ts) gives the answers of cli-table3's own
 * string-width: on every character of the basic plane, on every plain character in a string of
 * its own and amid others, and on mixed strings; what is not plain goes to the real function.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { TABLE_PLAIN, tableWidth } from '../../src/core/table-width.js';

/** The string-width cli-table3 requires (its own v4, not the one svc uses). */
const cliTableWidth = createRequire(createRequire(import.meta.url).resolve('cli-table3'))('string-width') as (text: string) => number;

const everyChar = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code));
const plainChars = everyChar.filter((char) => TABLE_PLAIN.test(char));

describe('cli-table3 measure', () => {
  it('measures every character of the basic plane as cli-table3 does', () => {
    const measure = tableWidth(cliTableWidth);
    const differing = everyChar.filter((char) => measure(char) !== cliTableWidth(char));
    expect(differing).toEqual([]);
  });

  it('counts plain characters one column each, alone, in pairs and in a long mixed line', () => {
    expect(plainChars.length).toBe(95 + 64 + 1);
    const calls: string[] = [];
    const measure = tableWidth((text) => (calls.push(text), cliTableWidth(text)));
    for (const char of plainChars) {
      expect(cliTableWidth(char)).toBe(1);
      expect(measure(`${char}a${char}`)).toBe(cliTableWidth(`${char}a${char}`));
    }
    const line = plainChars.join('');
    expect(measure(line)).toBe(cliTableWidth(line));
    expect(calls).toEqual([]);
  });

  it('hands anything else to the real measure: emoji, wide, marks, escapes, © and ®', () => {
    const calls: string[] = [];
    const measure = tableWidth((text) => (calls.push(text), cliTableWidth(text)));
    const others = ['a😀b', '漢字', 'e\u0301', '\x1b[31mred\x1b[39m', '©', 'x®', 'tab\there', ''.padEnd(3, '\u200b')];
    expect(others.map(measure)).toEqual(others.map(cliTableWidth));
    expect(calls).toEqual(others);
    expect(measure('')).toBe(0);
  });
});
