// Shared set-up of the DAP tests: where wavedbg and the kernels are, a started
// DebugClient (the client VS Code's own adapters are tested with), and a launch that
// stops on entry.
'use strict';
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const ROOT = path.resolve(__dirname, '..', '..');
const WAVEDBG = process.env.WAVEDBG || path.join(ROOT, 'target', 'release', 'wavedbg');
const kernel = (rel) => path.join(ROOT, rel);
const KERNELS = {
  reduce: kernel('scripts/reduce.s'),
  lanes: kernel('tests/kernels/lanes.s'),
  oob: kernel('scripts/replay/oob.s'),
  race: kernel('scripts/bugs/histogram_race.s'),
  spin: kernel('tests/dap-client/kernels/spin.s'),
  hazard: kernel('scripts/bugs/load_before_wait.s'),
  uninit: kernel('tests/dap-client/kernels/uninit.s'),
  divergentBarrier: kernel('tests/dap-client/kernels/divergent_barrier.s'),
  deadlock: kernel('tests/kernels/exit_before_barrier.s'),
  saxpy: kernel('scripts/saxpy_src.s'),
  lastBlockNoWait: kernel('tests/kernels/memory_model/last_block_no_wait.s'),
  saxpyCl: kernel('scripts/src/saxpy.cl'),
};

// A machine shared with other jobs can be slow: generous timeouts.
const TIMEOUT = 30000;

async function start() {
  const dc = new DebugClient(WAVEDBG, 'dap', 'wavedbg');
  dc.defaultTimeout = TIMEOUT;
  await dc.start();
  return dc;
}

// initialize, launch (stopping on entry) and configurationDone; resolves with the
// entry's stopped event once `configure` (breakpoints...) has run.
async function launchStopped(dc, args, configure) {
  const stopped = dc.waitForEvent('stopped');
  const configured = dc.waitForEvent('initialized').then(async () => {
    if (configure) await configure();
    return dc.configurationDoneRequest();
  });
  await dc.launch({ stopOnEntry: true, ...args });
  await configured;
  return stopped;
}

// Sends `request` and resolves with the next stopped event (registered first).
async function until(dc, request) {
  const stopped = dc.waitForEvent('stopped');
  await request();
  return stopped;
}

// A raw client: writes bytes, reads framed messages.
function raw(args = ['dap']) {
  const cp = require('node:child_process');
  const child = cp.spawn(WAVEDBG, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = Buffer.alloc(0);
  const messages = [];
  const all = [];
  let waiting = null;
  child.stdout.on('data', (d) => {
    buffer = Buffer.concat([buffer, d]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) break;
      const n = Number(/Content-Length: (\d+)/.exec(buffer.subarray(0, end).toString())[1]);
      if (buffer.length < end + 4 + n) break;
      const m = JSON.parse(buffer.subarray(end + 4, end + 4 + n).toString());
      messages.push(m);
      all.push(m);
      buffer = buffer.subarray(end + 4 + n);
    }
    if (waiting) waiting();
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  async function next(pred) {
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const i = messages.findIndex(pred);
      if (i >= 0) return messages.splice(i, 1)[0];
      if (Date.now() > deadline) throw new Error('no such message');
      await new Promise((r) => { waiting = r; setTimeout(r, 100); });
    }
  }
  const frame = (body) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  let seq = 1;
  const request = (command, args) => {
    const s = seq++;
    child.stdin.write(frame(JSON.stringify({ seq: s, type: 'request', command, arguments: args })));
    return next((m) => m.type === 'response' && m.request_seq === s);
  };
  return { child, next, frame, request, exited, all };
}

module.exports = { ROOT, WAVEDBG, KERNELS, TIMEOUT, start, launchStopped, until, raw };
