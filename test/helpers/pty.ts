/**
 * A real pseudo-terminal for interactive tests: tmux runs the binary, the test types answers with
 * send-keys and reads the screen with capture-pane, polling until the expected text shows. A tmux
 * server of its own per terminal, so tests never touch the user's sessions, run side by side, and a
 * server still shutting down after one test cannot refuse the next one's session.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { closeLater } from './cleanup.js';
import { BIN } from './svc.js';

const execFileAsync = promisify(execFile);
let terminals = 0;
const RUN = randomBytes(4).toString('hex');
const SESSION = 'svc';

export interface Terminal {
  /** Waits up to 20 s (a busy 2-core machine running the whole suite) for the text to appear on the screen; returns the screen. */
  waitFor(text: string | RegExp): Promise<string>;
  /** Answers a prompt once it shows: types the keys (text or key names such as Enter, Down). */
  answer(prompt: string, ...keys: string[]): Promise<void>;
  /** The visible screen now, `rows` lines, trailing spaces removed (as a person sees it). */
  screen(): Promise<string[]>;
}

/**
 * Runs svc on a terminal of `columns` × `rows`; the shell then prints the exit code and keeps the
 * pane open to be read.
 */
export async function startTerminal(args: string[], vars: Record<string, string>, size: { columns?: number; rows?: number } = {}): Promise<Terminal> {
  // Test files may share a worker process (and so a pid): the run's own random part keeps sockets apart.
  const socket = `svc-test-${process.pid}-${RUN}-${++terminals}`;
  const tmux = async (...tmuxArgs: string[]): Promise<string> => (await execFileAsync('tmux', ['-L', socket, ...tmuxArgs], { encoding: 'utf8' })).stdout;
  const assignments = Object.entries(vars).map(([name, value]) => `${name}=${quote(value)}`);
  const command = `env -u CI ${assignments.join(' ')} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}; echo "EXIT=$?"; sleep 120`;
  await tmux('new-session', '-d', '-s', SESSION, '-x', String(size.columns ?? 180), '-y', String(size.rows ?? 60), command);
  closeLater(() => tmux('kill-server').then(() => undefined, () => undefined));
  const history = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', SESSION);
  const waitFor = async (text: string | RegExp): Promise<string> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const shown = await history();
      if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${shown}`);
      await sleep(100);
    }
  };
  return {
    waitFor,
    async answer(prompt, ...keys) {
      await waitFor(prompt);
      for (const key of keys) await tmux('send-keys', '-t', SESSION, ...(['Enter', 'Down', 'Up'].includes(key) ? [key] : ['-l', key]));
    },
    async screen() {
      return (await tmux('capture-pane', '-p', '-t', SESSION)).replace(/\n$/, '').split('\n').map((line) => line.trimEnd());
    },
  };
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
