// launch in each form: a .s source, a .wko object, a saved session; the launch options
// seed and resident (what they change is seen through the client), and
// allowFileOutsideDir for a kernel's `.file`.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { WAVEDBG, KERNELS, TIMEOUT, start, launchStopped, until } = require('./helpers');

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'wavedbg-dap-'));
}

test('a .wko object: frames without a source, code by address and label', async () => {
  const dir = tempDir();
  const wko = path.join(dir, 'reduce.wko');
  const asm = cp.spawnSync(WAVEDBG, ['asm', KERNELS.reduce, '-o', wko], { encoding: 'utf8', timeout: TIMEOUT });
  assert.strictEqual(asm.status, 0, asm.stderr);
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: wko }, async () => {
      const f = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'combine' }] });
      assert.strictEqual(f.body.breakpoints[0].verified, true);
    });
    assert.strictEqual(entry.body.reason, 'entry');
    const frame = (await dc.stackTraceRequest({ threadId: entry.body.threadId })).body.stackFrames[0];
    assert.strictEqual(frame.source, undefined);
    assert.strictEqual(frame.instructionPointerReference, '0x0');
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    const at = (await dc.stackTraceRequest({ threadId: hit.body.threadId })).body.stackFrames[0];
    assert.strictEqual(at.instructionPointerReference, '0x3c');
  } finally {
    await dc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a saved session: its kernel, launch settings and breakpoints', async () => {
  const dir = tempDir();
  const saved = path.join(dir, 'reduce.wdbs');
  const first = await start();
  try {
    await launchStopped(first, { program: KERNELS.reduce, grid: 1 });
    const r = await first.evaluateRequest({ expression: `break combine`, context: 'repl' });
    assert.match(r.body.result, /Breakpoint \d+ at 0x003c <combine>/);
    const s = await first.evaluateRequest({ expression: `save ${saved}`, context: 'repl' });
    assert.match(s.body.result, /Saved session/);
  } finally {
    await first.stop();
  }
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { session: saved });
    // The session's grid of 1: one workgroup of two waves.
    assert.strictEqual((await dc.threadsRequest()).body.threads.length, 2);
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    const frame = (await dc.stackTraceRequest({ threadId: hit.body.threadId })).body.stackFrames[0];
    assert.strictEqual(frame.line, 25);
    assert.match(frame.source.path, /reduce\.s$/);
  } finally {
    await dc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The first wave to reach `combine`: wave 0 round-robin (seed 0), wave 1 with seed 7.
async function firstAtCombine(args) {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.reduce, ...args }, async () => {
      await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'combine' }] });
    });
    const threads = (await dc.threadsRequest()).body.threads.length;
    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    return { threads, thread: hit.body.threadId };
  } finally {
    await dc.stop();
  }
}

test('seed and resident change the launch', async () => {
  assert.deepStrictEqual(await firstAtCombine({}), { threads: 8, thread: 1 });
  assert.deepStrictEqual(await firstAtCombine({ seed: 7 }), { threads: 8, thread: 2 });
  // One workgroup resident at a time: two waves at the start.
  assert.strictEqual((await firstAtCombine({ resident: 1 })).threads, 2);
});

test('allowFileOutsideDir lets .file read outside the kernel directory', async () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'k'));
  fs.writeFileSync(path.join(dir, 'data.bin'), Buffer.from([7, 0, 0, 0]));
  const program = path.join(dir, 'k', 'k.s');
  fs.writeFileSync(program, '.kernel k\n.buffer b, 4\n.file b, "../data.bin"\n    end\n');
  try {
    const dc = await start();
    try {
      await assert.rejects(dc.launch({ program }), /outside the kernel's directory/);
    } finally {
      await dc.stop();
    }
    const ok = await start();
    try {
      await launchStopped(ok, { program, allowFileOutsideDir: true });
      const read = await ok.customRequest('readMemory', { memoryReference: 'global:b', count: 4 });
      assert.deepStrictEqual([...Buffer.from(read.body.data, 'base64')], [7, 0, 0, 0]);
    } finally {
      await ok.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
