/**
 * A hostile local user against every file svc writes: a symbolic link planted at the config file,
 * the saved cursor, the refund ledger, the refund cursor, the lock and a `--save-dir` file, and a
 * pre-created (guessed) temp name. Each is refused (exit 2, naming the path) with nothing written
 * through the link, in bounded time; temp files are exclusive, random and beside their target.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLedgerLock } from '../../src/features/refunds/lock.js';
import { Ledger, writeRefundCursor, type LedgerPlace } from '../../src/features/refunds/ledger.js';
import { ConfigStore } from '../../src/core/config.js';
import { ExitCode } from '../../src/core/errors.js';
import { SymlinkRefusedError, createExclusive, replaceFile, tempNameFor } from '../../src/core/safe-file.js';
import { tempDir } from '../helpers/cleanup.js';

const BASE = 'http://127.0.0.1:1/v1';
const ENTRY = { orderId: '0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11', coinPrice: '10', currency: null, eventId: null, refundedAt: '2026-11-24T00:00:00.000Z' };

/** A directory with a victim file the attacker wants svc to overwrite, and a link to it at `name`. */
function planted(name: string) {
  const dir = tempDir();
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'precious\n');
  const path = join(dir, name);
  symlinkSync(victim, path);
  return { dir, victim, path, untouched: () => readFileSync(victim, 'utf8') === 'precious\n' };
}

/**
 * Runs `attack`, expecting the link refusal naming `path`, within `ms`: what fails here is a write
 * that blocks (a FIFO opened for writing waits for a reader for ever), so the bound is generous.
 */
async function refused(attack: () => Promise<unknown>, path: string, ms = 5_000): Promise<void> {
  const started = performance.now();
  const error = await attack().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(performance.now() - started).toBeLessThan(ms);
  expect(error).toBeInstanceOf(SymlinkRefusedError);
  expect((error as SymlinkRefusedError).exitCode).toBe(ExitCode.usage);
  expect((error as Error).message).toBe(`${path} is a symbolic link; svc never writes through a link (nothing was written; replace the link with a regular file or remove it)`);
}

describe('safe-file: the one way svc replaces a file', () => {
  it('writes through an exclusive temp file with a random name beside the target, then renames it (mode 0600)', async () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    const names = new Set(Array.from({ length: 50 }, () => tempNameFor(target)));
    expect(names.size).toBe(50);
    for (const name of names) expect(name).toMatch(new RegExp(`^${dir}/\\.state\\.json\\.[0-9a-f]{16}\\.tmp$`));
    await replaceFile(target, 'one');
    await replaceFile(target, 'two');
    expect(readFileSync(target, 'utf8')).toBe('two');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('refuses a link at the target: nothing written through it, no temp file left', async () => {
    const { dir, path, untouched } = planted('state.json');
    await refused(() => replaceFile(path, 'attacker wins'), path);
    expect(untouched()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'victim.txt']);
  });

  it('an exclusive create never opens an existing file or follows a link (a dangling one included)', async () => {
    const { path, untouched } = planted('lock');
    await refused(() => createExclusive(path), path);
    const dangling = join(tempDir(), 'dangling');
    symlinkSync(join(tempDir(), 'does-not-exist'), dangling);
    await refused(() => createExclusive(dangling), dangling);
    expect(untouched()).toBe(true);
    const existing = join(tempDir(), 'file');
    writeFileSync(existing, 'x');
    await expect(createExclusive(existing)).rejects.toMatchObject({ code: 'EEXIST' });
  });
});

describe('every file svc writes refuses a planted link', () => {
  it('the config file (profiles, keys, saved cursors): exit 2 before anything is written', async () => {
    const { dir, path, untouched } = planted('config.json');
    const error = await ConfigStore.open({ SVC_CONFIG_DIR: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe(`config file ${path} is a symbolic link; svc keeps keys only in a regular file (replace the link with the file itself)`);
    expect(untouched()).toBe(true);
  });

  it('the saved cursor: a link planted after the config was read is refused at the write', async () => {
    const dir = tempDir();
    const store = await ConfigStore.open({ SVC_CONFIG_DIR: dir });
    await store.setCursor('default', BASE, 'c1');
    const victim = join(tempDir(), 'victim');
    writeFileSync(victim, 'precious\n');
    const { rmSync } = await import('node:fs');
    rmSync(store.path);
    symlinkSync(victim, store.path);
    await expect(store.setCursor('default', BASE, 'c2')).rejects.toThrow(/is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('the refund ledger: no append and no read through a link', async () => {
    const { path, untouched } = planted('ledger.jsonl');
    const ledger = new Ledger(path, () => undefined);
    await refused(() => ledger.append(ENTRY), path);
    await refused(() => ledger.refresh(), path);
    await ledger.close();
    expect(untouched()).toBe(true);
  });

  it('the refund cursor: a link at it is refused; a guessed temp name (the old `<cursor>.<pid>.tmp`) is never used', async () => {
    const { dir, path, untouched } = planted('ledger.jsonl.cursor');
    const place: LedgerPlace = { path: join(dir, 'ledger.jsonl'), cursorPath: path, lockPath: join(dir, 'ledger.jsonl.lock'), baseUrl: BASE };
    await refused(() => writeRefundCursor(place, 'c1'), path);
    expect(untouched()).toBe(true);

    // The attacker now guesses the temp name instead: a link where the old code wrote its temp file.
    const clean = tempDir();
    const victim = join(clean, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const cursorPath = join(clean, 'ledger.jsonl.cursor');
    symlinkSync(victim, `${cursorPath}.${process.pid}.tmp`);
    await writeRefundCursor({ ...place, cursorPath }, 'c2');
    expect(JSON.parse(readFileSync(cursorPath, 'utf8'))).toEqual({ baseUrl: BASE, cursor: 'c2' });
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('the runner lock: a link (even a dangling one) is refused at once, never waited on or followed', async () => {
    const { path, untouched } = planted('ledger.jsonl.lock');
    await refused(() => acquireLedgerLock(path, { waitMs: 5_000 }), path);
    expect(untouched()).toBe(true);
    const dir = tempDir();
    const dangling = join(dir, 'ledger.jsonl.lock');
    symlinkSync(join(dir, 'nowhere', 'x'), dangling);
    await refused(() => acquireLedgerLock(dangling, { waitMs: 5_000 }), dangling);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('a link planted in the refunds directory at the takeover file does not stall or redirect the takeover', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'refunds'));
    const lockPath = join(dir, 'refunds', 'l.lock');
    // A stale lock (dead pid), and a link where the takeover file goes.
    writeFileSync(lockPath, JSON.stringify({ pid: 2 ** 22 + 1, host: (await import('node:os')).hostname(), token: 't', since: '2000-01-01T00:00:00.000Z' }));
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, `${lockPath}.takeover`);
    await refused(() => acquireLedgerLock(lockPath, { waitMs: 1_000 }), `${lockPath}.takeover`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});
