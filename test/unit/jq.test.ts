/** The --jq adapter: a real jq (jq-wasm) over JSON lines and whole documents, strings raw, errors as exit 2. */
import { describe, expect, it } from 'vitest';
import { JqError, JqProgram, JqStdout } from '../../src/core/jq.js';

async function through(program: string, chunks: string[], options: { document?: boolean; terminal?: boolean } = {}): Promise<string> {
  let out = '';
  const filter = new JqStdout(await JqProgram.compile(program), options.document ?? false, async (text) => void (out += text), options.terminal ?? false);
  for (const chunk of chunks) await filter.chunk(chunk);
  await filter.end();
  return out;
}

const items = [
  { id: 'a', status: 'ACTIVE', coinPrice: '10.5', tags: ['x'] },
  { id: 'b', status: 'CANCELLED', coinPrice: '2', tags: [] },
  { id: 'c', status: 'ACTIVE', coinPrice: '1', tags: ['y', 'z'] },
];
const jsonl = items.map((item) => `${JSON.stringify(item)}\n`).join('');
const document = `${JSON.stringify(items, null, 2)}\n`;

describe('--jq', () => {
  it('runs each JSON line through the program; strings raw, other values compact, one a line', async () => {
    expect(await through('.id', [jsonl])).toBe('a\nb\nc\n');
    expect(await through('{id, n: (.tags | length)}', [jsonl])).toBe('{"id":"a","n":1}\n{"id":"b","n":0}\n{"id":"c","n":2}\n');
    expect(await through('select(.status == "ACTIVE") | "\\(.id) costs \\(.coinPrice)"', [jsonl])).toBe('a costs 10.5\nc costs 1\n');
    expect(await through('[.id, .status] | @csv', [jsonl])).toBe('"a","ACTIVE"\n"b","CANCELLED"\n"c","ACTIVE"\n');
    expect(await through('[.id, .coinPrice] | @tsv', [jsonl])).toBe('a\t10.5\nb\t2\nc\t1\n');
    expect(await through('try (.tags[1] | error) catch "caught \\(.)"', [jsonl])).toBe('caught null\ncaught null\ncaught z\n');
  });

  it('a line split across writes goes through once, when complete', async () => {
    const [first, second] = [jsonl.slice(0, 10), jsonl.slice(10)];
    expect(await through('.id', [first, second])).toBe('a\nb\nc\n');
  });

  it('with -o json the whole document goes through once: reduce, paths, group_by', async () => {
    expect(await through('reduce .[] as $i (0; . + ($i.coinPrice | tonumber))', [document.slice(0, 7), document.slice(7)], { document: true })).toBe('13.5\n');
    expect(await through('[paths(type == "string")] | length', [document], { document: true })).toBe('12\n');
    expect(await through('group_by(.status) | map({status: .[0].status, n: length})[]', [document], { document: true })).toBe(
      '{"status":"ACTIVE","n":2}\n{"status":"CANCELLED","n":1}\n',
    );
  });

  it('a program without results prints nothing; an empty string is an empty line, so rows stay aligned', async () => {
    expect(await through('select(.status == "EXPIRED")', [jsonl])).toBe('');
    expect(await through('.tags[0] // ""', [jsonl])).toBe('x\n\ny\n');
    expect(await through('"two\nlines"', ['{}\n'])).toBe('two\nlines\n');
    expect(await through('.n', ['{"n":12345678901234567890}\n'])).toBe('12345678901234567890\n');
  });

  it('on a terminal, raw strings have their control characters made visible', async () => {
    expect(await through('.t', ['{"t":"\\u001b]0;pwned\\u0007ok"}\n'], { terminal: true })).toBe('\\x1b]0;pwned\\x07ok\n');
    expect(await through('.t', ['{"t":"\\u001b[2J"}\n'])).toBe('\u001b[2J\n');
  });

  it('a program that does not compile fails before any input, with jq\'s message (exit 2)', async () => {
    const error = await JqProgram.compile('.items[] | select(.x ==').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JqError);
    expect((error as JqError).exitCode).toBe(2);
    expect((error as JqError).message).toMatch(/^jq: error: syntax error, .*jq: 1 compile error$/);
    // Programs that would loop or fail at run time are not run by the check.
    await expect(JqProgram.compile('repeat(.)')).resolves.toBeInstanceOf(JqProgram);
    await expect(JqProgram.compile('error("only at run time")')).resolves.toBeInstanceOf(JqProgram);
    await expect(JqProgram.compile('def f: .id; f # a comment')).resolves.toBeInstanceOf(JqProgram);
  });

  it('a run-time error is exit 2 with jq\'s message; what came before it is printed', async () => {
    let out = '';
    const filter = new JqStdout(await JqProgram.compile('if .id == "b" then error("bad \\(.id)") else .id end'), false, async (text) => void (out += text), false);
    const error = await filter.chunk(jsonl).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JqError);
    expect((error as JqError).message).toBe('jq: error (at /dev/stdin:2): bad b');
    expect(out).toBe('a\nc\n');
  });
});
