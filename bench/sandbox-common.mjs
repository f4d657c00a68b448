// Shared by the sandbox benches: starts `svc sandbox` as a child process and reads its ready line.
// The CLI must be built (`npm run build`); SVC_BIN points at another entry script if needed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const defaultBin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

export async function startSandbox({ bulkLinks = 0, rateLimit = 1_000_000 } = {}) {
  const child = spawn(process.execPath, [process.env.SVC_BIN ?? defaultBin, 'sandbox', '--port', '0', '--no-profile', '--rate-limit', String(rateLimit)], {
    env: { ...process.env, SVC_SANDBOX_BULK_LINKS: String(bulkLinks) },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout });
  const info = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code} before it was ready`)));
    lines.once('line', (line) => resolve(JSON.parse(line)));
  });
  return {
    info,
    pid: child.pid,
    apiKey: info.keys.find((k) => k.name === 'full').apiKey,
    rssMb() {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return match ? Number(match[1]) / 1024 : NaN;
    },
    stop() {
      return new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    },
  };
}

export async function getJson(url, apiKey) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
