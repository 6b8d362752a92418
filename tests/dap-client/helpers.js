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

module.exports = { ROOT, WAVEDBG, KERNELS, TIMEOUT, start, launchStopped, until };
