/**
 * Whole-file inputs are bounded (`--payload-file`, `--data @file`, `--from-file`): a regular file or
 * standard input, within the stated cap; a device, fifo or directory is a usage error naming it at
 * once (nothing opened that could block); Ctrl-C ends a wait for standard input; a secret read
 * from standard input stops at 64 KiB.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode, InterruptedError, UsageError } from '../../src/core/errors.js';
import { PAYLOAD_LIMIT, REQUEST_BODY_LIMIT, readFileOrStdin, readStdinLines } from '../../src/core/stdin.js';
import { tempDir } from '../helpers/cleanup.js';

const never = new AbortController().signal;
const noStdin = () => Readable.from([]);

/** The usage error a read ends with (a read that blocked, on a fifo say, would end the test by its time-out). */
async function refusal(read: () => Promise<unknown>): Promise<string> {
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(ExitCode.usage);
  return (error as Error).message;
}

describe('readFileOrStdin', () => {
  it('reads a regular file byte for byte, up to the cap exactly', async () => {
    const dir = tempDir();
    const file = join(dir, 'body.json');
    writeFileSync(file, Buffer.from('{"a":"\u00e9"}\n'));
    expect((await readFileOrStdin(file, noStdin(), '--payload-file', never, PAYLOAD_LIMIT)).toString('utf8')).toBe('{"a":"\u00e9"}\n');
    truncateSync(file, PAYLOAD_LIMIT.bytes);
    expect((await readFileOrStdin(file, noStdin(), '--payload-file', never, PAYLOAD_LIMIT)).length).toBe(PAYLOAD_LIMIT.bytes);
  });

  it('refuses a file over the cap before reading it', async () => {
    const file = join(tempDir(), 'big.json');
    writeFileSync(file, '');
    truncateSync(file, 4 * 1024 * 1024 * 1024);
    expect(await refusal(() => readFileOrStdin(file, noStdin(), '--data', never, REQUEST_BODY_LIMIT))).toBe(`--data: ${file} is larger than 10 MB, the most svc reads here`);
    truncateSync(file, PAYLOAD_LIMIT.bytes + 1);
    expect(await refusal(() => readFileOrStdin(file, noStdin(), '--payload-file', never, PAYLOAD_LIMIT))).toBe(`--payload-file: ${file} is larger than 1 MiB, the most svc reads here`);
  });

  it('refuses a device, a link to one, a fifo with no writer and a directory at once, naming each', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const link = join(dir, 'zero');
    symlinkSync('/dev/zero', link);
    const read = (path: string) => () => readFileOrStdin(path, noStdin(), '--payload-file', never, PAYLOAD_LIMIT);
    expect(await refusal(read('/dev/zero'))).toBe('--payload-file: /dev/zero is a device; give a regular file, or - for standard input');
    expect(await refusal(read(link))).toBe(`--payload-file: ${link} is a device; give a regular file, or - for standard input`);
    expect(await refusal(read(fifo))).toBe(`--payload-file: ${fifo} is a fifo; give a regular file, or - for standard input`);
    expect(await refusal(read(sub))).toBe(`--payload-file: ${sub} is a directory; give a regular file, or - for standard input`);
    expect(await refusal(read(join(dir, 'missing')))).toBe(`--payload-file: cannot read ${join(dir, 'missing')}: no such file`);
  });

  it('stops reading standard input past the cap', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024));
      },
    });
    expect(await refusal(() => readFileOrStdin('-', endless, '--from-file', never, REQUEST_BODY_LIMIT))).toBe('--from-file: standard input is larger than 10 MB, the most svc reads here');
    expect(produced).toBeLessThan(REQUEST_BODY_LIMIT.bytes + 1024 * 1024);
    expect(endless.destroyed).toBe(true);
  });

  it('stops reading a secret on standard input past 64 KiB', async () => {
    const endless = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 0x61));
      },
    });
    expect(await refusal(() => readStdinLines(endless, 1, '--api-key-stdin', never))).toBe('--api-key-stdin: standard input is larger than 64 KiB, the most svc reads for a secret');
    expect(endless.destroyed).toBe(true);
  });

  it('ends a wait for standard input when the run is interrupted', async () => {
    const stdin = new PassThrough();
    stdin.write('{"id":');
    const controller = new AbortController();
    const reading = readFileOrStdin('-', stdin, '--payload-file', controller.signal, PAYLOAD_LIMIT);
    controller.abort();
    await expect(reading).rejects.toBeInstanceOf(InterruptedError);
    expect(stdin.destroyed).toBe(true);
  });
});
