// Stress: `svc verify-signature` and `svc webhooks sign` against an independent implementation of the
// webhook signing scheme (openapi/openapi.yaml, Svc-Signature): v1 = hex HMAC-SHA256 keyed by the secret's
// UTF-8 bytes over `${t}.${raw body}`; header `t=<unix>,v1=<hex>`; |t − now| ≤ tolerance (300 s).
//   SVC_BIN=/tmp/svc-stress/bin/svc.js node bench/stress-signatures.mjs [--cases 300] [--seed N] [--jobs 8]
// Random valid, tampered, stale, future, multi-signature, other-scheme and malformed cases, plus
// every planted mistake src/core/signature-diagnose.ts knows; each must give the exit code, reason and cause expected.
import { createHmac, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checks, runSvc, startSandbox, tempDir } from './stress-lib.mjs';

const { values } = parseArgs({ options: { cases: { type: 'string', default: '300' }, seed: { type: 'string' }, jobs: { type: 'string', default: '8' } } });
let seed = Number(values.seed ?? Date.now() % 1_000_000);
const SEED = seed;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

// ---- the independent implementation -------------------------------------------------------------

const hmac = (keyBytes, message) => createHmac('sha256', keyBytes).update(message).digest('hex');
/** v1 for a secret given as text (its UTF-8 bytes are the key) or as raw key bytes. */
const sign = (secret, t, body) => hmac(Buffer.isBuffer(secret) ? secret : Buffer.from(secret, 'utf8'), Buffer.concat([Buffer.from(`${t}.`, 'utf8'), Buffer.from(body)]));

/** Strict header reading, then tolerance, then signature: the reason of the first failed check. */
function verify(header, body, secret, now, tolerance = 300) {
  const value = header.trim();
  if (value === '') return 'malformed_header';
  let t;
  let tCount = 0;
  const v1 = [];
  for (const pair of value.split(',')) {
    const match = /^([A-Za-z0-9_-]+)=(.*)$/s.exec(pair);
    if (!match) return 'malformed_header';
    const [, name, content] = match;
    if (name === 't') {
      tCount++;
      if (!/^\d+$/.test(content)) return 'malformed_header';
      t = content;
    } else if (name === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(content)) return 'malformed_header';
      v1.push(content);
    }
  }
  if (tCount !== 1 || v1.length === 0) return 'malformed_header';
  if (Math.abs(Number(t) - now) > tolerance) return 'timestamp_outside_tolerance';
  const expected = sign(secret, t, body);
  return v1.includes(expected) ? null : 'no_matching_signature';
}

// ---- inputs ----------------------------------------------------------------------------------------

const hexSecret = () => randomBytesSeeded(32).toString('hex');
function randomBytesSeeded(n) {
  return Buffer.from(Array.from({ length: n }, () => int(0, 255)));
}
const textSecret = () => pick([hexSecret, hexSecret, () => `whsec_${hexSecret().slice(0, 20)}`, () => `sëcret-${int(0, 1e6)}-✓`])();
const words = ['Lucky Star', 'Golden Reels', 'Zoë', 'Grüße', '東京', 'emoji 🎁', 'quote "x"', 'back\\slash', 'tab\there', 'line\nbreak'];
function eventBody() {
  const event = {
    id: crypto.randomUUID(),
    type: pick(['personal_link.created', 'personal_link.claimed', 'order.sent', 'order.completed', 'something.new']),
    occurredAt: new Date(Date.UTC(2026, 10, int(1, 28), int(0, 23), int(0, 59), int(0, 59))).toISOString().replace('Z', '123Z'),
    environment: 'production',
    data: { id: crypto.randomUUID(), status: pick(['ACTIVE', 'CLAIMED', 'SENT']), coinPrice: int(0, 100000), note: pick(words), nested: { list: [1, 2.5, true, null], name: pick(words) } },
  };
  return JSON.stringify(event);
}
const pretty = (body) => JSON.stringify(JSON.parse(body), null, 2);
/** Python's json.dumps default: ", " and ": " separators (whitespace only, outside strings). */
const pythonStyle = (body) => {
  let out = '';
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    out += ch;
    if (inString) {
      if (ch === '\\') out += body[++i];
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === ',' || ch === ':') out += ' ';
  }
  return out;
};

// ---- cases -------------------------------------------------------------------------------------------

const NOW = 1_763_719_200 + int(0, 10_000_000);
const cases = [];
/**
 * A verify case: the CLI gets `header`, `body`, the secret (stdin unless `env`/`profile` says
 * otherwise) and `now`; `cause` is the cause code expected first, or a list of acceptable ones.
 */
function verifyCase(name, { header, body, secret, now = NOW, tolerance, cause, secretSource, profile, env, secretBy = 'stdin', stdinText }) {
  const reason = verify(header, body, secret, now, tolerance ?? 300);
  cases.push({ kind: 'verify', name, header, body: Buffer.from(body), secret, now, tolerance, reason, cause, secretSource, profile, env, secretBy, stdinText });
}
const header = (t, ...sigs) => [`t=${t}`, ...sigs.map((s) => `v1=${s}`)].join(',');
const fake = () => randomBytesSeeded(32).toString('hex');

const generators = {
  valid() {
    const secret = textSecret();
    const body = pick([eventBody, () => pretty(eventBody()), () => `${eventBody()}\n`])();
    const t = NOW + int(-300, 300);
    verifyCase('valid', { header: header(t, sign(secret, t, body)), body, secret });
  },
  tampered() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 60);
    const tamper = pick([
      (b) => b.replace(/"coinPrice":\d+/, '"coinPrice":999999'),
      (b) => b.replace('ACTIVE', 'CLAIMED').replace('SENT', 'CLAIMED'),
      (b) => `${b.slice(0, -1)},"x":1}`,
    ]);
    const changed = tamper(body);
    verifyCase('tampered body', { header: header(t, sign(secret, t, body)), body: changed === body ? `${body} ` : changed, secret, cause: changed === body ? 'whitespace_changed' : [] });
  },
  tolerance() {
    const secret = hexSecret();
    const body = eventBody();
    const tolerance = pick([undefined, undefined, 0, 1, 10, 600, 3600]);
    const limit = tolerance ?? 300;
    const direction = pick([-1, 1]);
    const inside = random() < 0.5;
    const t = NOW + direction * (inside ? limit - int(0, Math.min(limit, 2)) : limit + int(1, 3));
    verifyCase(`${direction < 0 ? 'stale' : 'future'} t ${inside ? 'just inside' : 'just outside'} ±${limit}`, {
      header: header(t, sign(secret, t, body)),
      body,
      secret,
      tolerance,
      cause: inside ? undefined : direction < 0 ? 'stale_timestamp' : 'future_timestamp',
    });
  },
  multi() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    const good = sign(secret, t, body);
    const others = Array.from({ length: int(1, 4) }, fake);
    const oneValid = random() < 0.6;
    const sigs = oneValid ? [...others.slice(0, int(0, others.length)), good, ...others] : others;
    verifyCase(oneValid ? 'several v1, one valid' : 'several v1, none valid', { header: header(t, ...sigs), body, secret, cause: oneValid ? undefined : [] });
  },
  otherSchemes() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    const good = sign(secret, t, body);
    const parts = [`t=${t}`, `v0=${fake()}`, `v1=${random() < 0.7 ? good : fake()}`, `v2=${fake().slice(0, 10)}`];
    if (random() < 0.5) parts.reverse();
    verifyCase('other schemes ignored', { header: parts.join(','), body, secret, cause: parts.includes(`v1=${good}`) ? undefined : [] });
  },
  malformed() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW;
    const good = sign(secret, t, body);
    const variant = pick([
      ['empty', ''],
      ['only spaces', '   '],
      ['no t', `v1=${good}`],
      ['non-numeric t', `t=abc,v1=${good}`],
      ['negative t', `t=-${t},v1=${good}`],
      ['decimal t', `t=${t}.5,v1=${good}`],
      ['empty t', `t=,v1=${good}`],
      ['no v1', `t=${t}`],
      ['only v0', `t=${t},v0=${good}`],
      ['bad hex v1', `t=${t},v1=${good.slice(0, 63)}z`],
      ['short v1', `t=${t},v1=${good.slice(0, 40)}`],
      ['empty v1', `t=${t},v1=`],
      ['duplicate t', `t=${t},t=${t},v1=${good}`],
      ['space after comma', `t=${t}, v1=${good}`],
      ['space around =', `t = ${t},v1=${good}`],
      ['semicolons', `t=${t};v1=${good}`],
      ['no =', `t${t},v1${good}`],
      ['header name included', `Svc-Signature: t=${t},v1=${good}`],
      ['trailing comma', `t=${t},v1=${good},`],
    ]);
    verifyCase(`malformed: ${variant[0]}`, { header: variant[1], body, secret, cause: [] });
  },
  reserialised() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    const [label, received] = pick([
      ['pretty 2', pretty(body)],
      ['pretty 4', JSON.stringify(JSON.parse(body), null, 4)],
      ['pretty tabs', JSON.stringify(JSON.parse(body), null, '\t')],
      ['python separators', pythonStyle(body)],
      ['pretty + newline', `${pretty(body)}\n`],
    ]);
    verifyCase(`planted: body re-serialised (${label})`, { header: header(t, sign(secret, t, body)), body: received, secret, cause: ['body_reserialized', 'whitespace_changed'] });
  },
  whitespace() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    const received = pick([` ${body}`, `${body}  `, `\t${body}`, `  ${body}\n`]);
    verifyCase('planted: whitespace added around the body', { header: header(t, sign(secret, t, body)), body: received, secret, cause: ['whitespace_changed', 'body_reserialized', 'trailing_newline_added'] });
  },
  newlineAdded() {
    const secret = hexSecret();
    const body = pick([eventBody, () => pretty(eventBody())])();
    const t = NOW - int(0, 100);
    verifyCase('planted: trailing newline added', { header: header(t, sign(secret, t, body)), body: `${body}${pick(['\n', '\r\n'])}`, secret, cause: 'trailing_newline_added' });
  },
  newlineLost() {
    const secret = hexSecret();
    const body = pick([eventBody, () => pretty(eventBody())])();
    const t = NOW - int(0, 100);
    verifyCase('planted: trailing newline lost', { header: header(t, sign(secret, t, `${body}\n`)), body, secret, cause: 'trailing_newline_lost' });
  },
  crlf() {
    const secret = hexSecret();
    const signed = `${pretty(eventBody())}${pick(['', '\n'])}`;
    const t = NOW - int(0, 100);
    const toCrlf = random() < 0.7;
    const received = toCrlf ? signed.replace(/\n/g, '\r\n') : signed;
    const signedAs = toCrlf ? signed : signed.replace(/\n/g, '\r\n');
    verifyCase(`planted: ${toCrlf ? 'CRLF received, LF signed' : 'LF received, CRLF signed'}`, { header: header(t, sign(secret, t, signedAs)), body: received, secret, cause: 'line_endings_changed' });
  },
  hexDecoded() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    verifyCase('planted: secret hex-decoded by the sender', { header: header(t, sign(Buffer.from(secret, 'hex'), t, body)), body, secret, cause: 'secret_hex_decoded' });
  },
  secretWhitespaceSender() {
    const secret = hexSecret();
    const body = eventBody();
    const t = NOW - int(0, 100);
    const used = pick([`${secret}\n`, `${secret}\r\n`, `${secret} `, ` ${secret}`, `${secret}\t`, ` ${secret}\n`]);
    verifyCase(`planted: sender's secret carries ${JSON.stringify(used.replace(secret, '…'))}`, { header: header(t, sign(used, t, body)), body, secret, cause: 'secret_whitespace' });
  },
  secretWhitespaceReceiver() {
    // The receiver's secret (here SVC_WEBHOOK_SECRET) carries whitespace; the sender used it clean.
    const clean = hexSecret();
    const given = pick([`${clean} `, ` ${clean}`, `${clean}\n`, `${clean}\r`]);
    const body = eventBody();
    const t = NOW - int(0, 100);
    verifyCase('planted: receiver secret (SVC_WEBHOOK_SECRET) carries whitespace', {
      header: header(t, sign(clean, t, body)),
      body,
      secret: given,
      secretBy: 'env',
      env: { SVC_WEBHOOK_SECRET: given },
      cause: 'secret_whitespace',
    });
  },
  secretWhitespaceStdin() {
    // The receiver pipes a secret with whitespace (beyond the one line end echo adds); the sender used it clean.
    const clean = hexSecret();
    const given = pick([` ${clean}`, `${clean} `, `${clean}\t`, `${clean}\n\n`, ` ${clean} `]);
    const body = eventBody();
    const t = NOW - int(0, 100);
    verifyCase(`planted: --secret-stdin secret carries ${JSON.stringify(given.replace(clean, '…'))}`, {
      header: header(t, sign(clean, t, body)),
      body,
      secret: given,
      stdinText: `${given}\n`,
      cause: 'secret_whitespace',
    });
  },
  reserialisedBySender() {
    // The sender signed a differently formatted body than the one that arrived.
    const secret = hexSecret();
    const received = eventBody();
    const t = NOW - int(0, 100);
    const escaped = (json) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const [label, signed] = pick([
      ['Python json.dumps', escaped(pythonStyle(received))],
      ['pretty 2', pretty(received)],
      ['ASCII-escaped', escaped(received)],
    ]);
    if (signed === received) return generators.reserialised();
    verifyCase(`planted: sender signed the body re-serialised (${label})`, { header: header(t, sign(secret, t, signed)), body: received, secret, cause: ['body_reserialized', 'whitespace_changed'] });
  },
  farTimestamp() {
    // A t of many digits that is not milliseconds of now: outside tolerance, not called milliseconds.
    const secret = hexSecret();
    const body = eventBody();
    const t = pick(['99999999999999999', '1000000000000', String(NOW * 1000 * 1000)]);
    verifyCase(`far-off t ${t.length} digits`, { header: header(t, sign(secret, t, body)), body, secret, cause: ['future_timestamp', 'stale_timestamp'] });
  },
  millisecondsT() {
    const secret = hexSecret();
    const body = eventBody();
    const seconds = NOW - int(0, 100);
    const ms = seconds * 1000 + int(0, 999);
    const variant = pick(['t and signature in ms', 't in ms, signed seconds', 't in seconds, signed ms']);
    const h =
      variant === 't and signature in ms'
        ? header(ms, sign(secret, ms, body))
        : variant === 't in ms, signed seconds'
          ? header(seconds * 1000, sign(secret, seconds, body))
          : header(seconds, sign(secret, seconds * 1000, body));
    verifyCase(`planted: timestamp in milliseconds (${variant})`, { header: h, body, secret, cause: 'timestamp_milliseconds' });
  },
};

// Wrong secret: needs profiles; filled in once the sandbox is up.
const profileCases = (profiles) => {
  const [a, b] = profiles;
  for (let i = 0; i < 6; i++) {
    const body = eventBody();
    const t = NOW - int(0, 100);
    const useProfile = i % 2 === 0;
    verifyCase(`planted: wrong secret (signed with profile ${b.name}'s, verified with ${useProfile ? `profile ${a.name}` : '--secret-stdin'})`, {
      header: header(t, sign(b.secret, t, body)),
      body,
      secret: a.secret,
      secretBy: useProfile ? 'profile' : 'stdin',
      profile: a.name,
      cause: 'wrong_secret',
      secretSource: `profile ${b.name}`,
    });
  }
  // the profile's own secret, signed correctly: valid
  const body = eventBody();
  verifyCase(`profile ${b.name}'s secret from the profile: valid`, { header: header(NOW, sign(b.secret, NOW, body)), body, secret: b.secret, secretBy: 'profile', profile: b.name });
};

const weights = [
  ['valid', 40], ['tampered', 20], ['tolerance', 40], ['multi', 25], ['otherSchemes', 15], ['malformed', 45],
  ['reserialised', 12], ['whitespace', 8], ['newlineAdded', 10], ['newlineLost', 10], ['crlf', 10], ['hexDecoded', 8],
  ['secretWhitespaceSender', 10], ['secretWhitespaceReceiver', 6], ['secretWhitespaceStdin', 6], ['reserialisedBySender', 8],
  ['farTimestamp', 3], ['millisecondsT', 12],
];
const TOTAL = Number(values.cases);
const scale = TOTAL / weights.reduce((sum, [, w]) => sum + w, 0);
for (const [name, weight] of weights) for (let i = 0; i < Math.max(1, Math.round(weight * scale)); i++) generators[name]();

// `webhooks sign` cases: random bodies (bytes, not only UTF-8), secrets and timestamps.
const signCases = [];
for (let i = 0; i < Math.max(20, Math.round(TOTAL / 6)); i++) {
  const secret = pick([hexSecret, textSecret, () => `a b ${hexSecret().slice(0, 8)}`, () => ` ${hexSecret().slice(0, 16)} `])();
  const body = pick([() => Buffer.from(eventBody()), () => Buffer.from(`${pretty(eventBody())}\n`), () => randomBytes(int(0, 300)), () => Buffer.alloc(0)])();
  const t = pick([() => NOW, () => int(0, 9_999_999_999), () => 0])();
  signCases.push({ kind: 'sign', name: `sign #${i + 1}`, secret, body, t });
}

// ---- run -----------------------------------------------------------------------------------------

const result = checks('stress-signatures');
console.log(`seed ${SEED}, now ${NOW}, ${cases.length} verify cases + ${signCases.length} sign cases`);
const dir = tempDir();
const sandbox = await startSandbox();
try {
  const configDir = join(dir, 'config');
  const profiles = [];
  for (const [name, keyName] of [['alpha', 'full'], ['beta', 'other']]) {
    const key = sandbox.key(keyName);
    const login = await runSvc(['login', '--profile', name, '--base-url', sandbox.baseUrl, '--api-key-stdin', '--webhook-secret-stdin'], {
      env: { SVC_CONFIG_DIR: configDir },
      input: `${key.apiKey}\n${key.webhookSecret}\n`,
    });
    if (!result.check(`login --profile ${name}`, login.code === 0, login.stderr)) throw new Error('login failed');
    profiles.push({ name, secret: key.webhookSecret });
  }
  profileCases(profiles);
  const allSecrets = [...profiles.map((p) => p.secret)];

  let file = 0;
  const runCase = async (c) => {
    const payloadFile = join(dir, `payload-${file++}`);
    writeFileSync(payloadFile, c.body);
    if (c.kind === 'sign') {
      const run = await runSvc(['webhooks', 'sign', '--payload-file', payloadFile, '--secret-stdin', '--timestamp', String(c.t)], { env: { SVC_CONFIG_DIR: configDir }, input: `${c.secret}\n` });
      const want = `t=${c.t},v1=${sign(c.secret, c.t, c.body)}`;
      result.check(`${c.name}: header equals the independent one`, run.code === 0 && run.stdout === `${want}\n`, `exit ${run.code}, got ${JSON.stringify(run.stdout)} want ${want} ${run.stderr}`);
      const check = await runSvc(['verify-signature', '--header', want, '--payload-file', payloadFile, '--secret-stdin', '--now', String(c.t), '-o', 'json'], { env: { SVC_CONFIG_DIR: configDir }, input: `${c.secret}\n` });
      result.check(`${c.name}: verify-signature accepts it`, check.code === 0, `exit ${check.code} ${check.stdout.slice(0, 200)}`);
      return;
    }
    const args = ['verify-signature', '--header', c.header, '--payload-file', payloadFile, '--now', String(c.now), '-o', 'json'];
    if (c.tolerance !== undefined) args.push('--tolerance', String(c.tolerance));
    if (c.secretBy === 'stdin') args.push('--secret-stdin');
    if (c.profile) args.push('--profile', c.profile);
    const env = { SVC_CONFIG_DIR: configDir, ...(c.env ?? {}) };
    const run = await runSvc(args, { env, input: c.secretBy === 'stdin' ? (c.stdinText ?? `${c.secret}\n`) : '' });
    const wantExit = c.reason === null ? 0 : 1;
    const label = `${c.name}`;
    if (!result.check(`${label}: exit ${wantExit}`, run.code === wantExit, `exit ${run.code}; header ${JSON.stringify(c.header).slice(0, 90)}; ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`)) return;
    let report;
    try {
      report = JSON.parse(run.stdout);
    } catch {
      result.check(`${label}: -o json prints one JSON report`, false, run.stdout.slice(0, 200));
      return;
    }
    result.check(`${label}: reason ${c.reason}`, report.reason === c.reason, `got ${report.reason}`);
    if (c.cause !== undefined) {
      const accepted = Array.isArray(c.cause) ? c.cause : [c.cause];
      const got = report.causes.map((x) => x.code);
      const ok = Array.isArray(c.cause) && c.cause.length === 0 ? true : accepted.includes(report.cause) || got.some((code) => accepted.includes(code));
      result.check(`${label}: cause ${accepted.join('|')}`, ok, `got ${JSON.stringify(got)} header ${c.header.slice(0, 40)}`);
    } else if (c.reason === null) {
      result.check(`${label}: no cause when valid`, report.causes.length === 0, JSON.stringify(report.causes));
    }
    if (c.secretSource) result.check(`${label}: names ${c.secretSource}`, report.causes.some((x) => x.secretSource === c.secretSource), JSON.stringify(report.causes));
    if (c.reason !== 'malformed_header' && c.reason !== undefined) {
      result.check(`${label}: evidence: parsed t and skew`, typeof report.timestamp === 'number' && report.skewSeconds === report.timestamp - c.now, JSON.stringify({ t: report.timestamp, skew: report.skewSeconds }));
    }
    const printed = run.stdout + run.stderr;
    const leaked = [c.secret.trim(), ...allSecrets].filter((s) => s.length >= 8 && printed.includes(s));
    result.check(`${label}: no secret printed`, leaked.length === 0);
  };

  const queue = [...cases, ...signCases];
  const started = performance.now();
  await Promise.all(Array.from({ length: Number(values.jobs) }, async () => {
    while (queue.length > 0) await runCase(queue.shift());
  }));
  result.figure('cases', `${cases.length} verify + ${signCases.length} sign in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const byReason = {};
  for (const c of cases) byReason[c.reason ?? 'valid'] = (byReason[c.reason ?? 'valid'] ?? 0) + 1;
  result.figure('verify cases by expected verdict', JSON.stringify(byReason));

  // Usage errors exit 2 before anything else.
  const body = join(dir, 'usage.json');
  writeFileSync(body, '{}');
  for (const [label, args, input] of [
    ['no --header', ['verify-signature', '--payload-file', body, '--secret-stdin'], 'x\n'],
    ['no --payload-file', ['verify-signature', '--header', 't=1,v1=00', '--secret-stdin'], 'x\n'],
    ['--now not digits', ['verify-signature', '--header', 't=1,v1=00', '--payload-file', body, '--secret-stdin', '--now', 'soon'], 'x\n'],
    ['--tolerance negative', ['verify-signature', '--header', 't=1,v1=00', '--payload-file', body, '--secret-stdin', '--tolerance', '-5'], 'x\n'],
    ['missing payload file', ['verify-signature', '--header', 't=1,v1=00', '--payload-file', join(dir, 'nope'), '--secret-stdin'], 'x\n'],
    ['empty --secret-stdin', ['verify-signature', '--header', 't=1,v1=00', '--payload-file', body, '--secret-stdin'], ''],
    ['sign: --timestamp not digits', ['webhooks', 'sign', '--payload-file', body, '--secret-stdin', '--timestamp', '12.5'], 'x\n'],
    ['sign: no --payload-file', ['webhooks', 'sign', '--secret-stdin'], 'x\n'],
  ]) {
    const run = await runSvc(args, { env: { SVC_CONFIG_DIR: join(dir, 'empty-config') }, input });
    result.check(`usage: ${label} exits 2`, run.code === 2, `exit ${run.code} ${run.stderr.slice(0, 200)}`);
  }
} finally {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
}
result.finish();
