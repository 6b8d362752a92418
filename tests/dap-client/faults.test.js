// exceptionInfo on a fault and on a sanitizer finding (both sides named), the faults
// filter, and a launch that faulted waves end.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped, until } = require('./helpers');

test('a fault stops with its text and exceptionInfo describes it', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.oob });
    // The entry is a stop, and not an exception.
    await assert.rejects(dc.exceptionInfoRequest({ threadId: entry.body.threadId }), /last stop \(entry\) is not an exception/);
    const fault = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(fault.body.reason, 'exception');
    assert.match(fault.body.text, /SIGSEGV/);
    const info = await dc.exceptionInfoRequest({ threadId: fault.body.threadId });
    // Another thread has no exception of its own.
    await assert.rejects(dc.exceptionInfoRequest({ threadId: fault.body.threadId + 1 }), /did not stop on an exception/);
    assert.match(info.body.exceptionId, /^fault:/);
    assert.strictEqual(info.body.breakMode, 'always');
    assert.strictEqual(info.body.details.typeName, 'fault');
    assert.match(info.body.description, /ld\.ubase\.b32/);
    // The launch cannot go on: its only wave faulted.
    const exited = dc.waitForEvent('exited');
    await dc.continueRequest({ threadId: fault.body.threadId });
    assert.strictEqual((await exited).body.exitCode, 1);
  } finally {
    await dc.stop();
  }
});

test('with the faults filter off a fault does not stop', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.oob }, async () => {
      await dc.setExceptionBreakpointsRequest({ filters: [] });
    });
    const exited = dc.waitForEvent('exited');
    await dc.continueRequest({ threadId: entry.body.threadId });
    assert.strictEqual((await exited).body.exitCode, 1);
  } finally {
    await dc.stop();
  }
});

test('a sanitizer filter stops at a race and names both sides', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.race }, async () => {
      await dc.setExceptionBreakpointsRequest({ filters: ['faults', 'races'] });
      await assert.rejects(dc.setExceptionBreakpointsRequest({ filters: ['nope'] }), /unknown exception filter/);
    });
    const found = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(found.body.reason, 'exception');
    const info = await dc.exceptionInfoRequest({ threadId: found.body.threadId });
    assert.strictEqual(info.body.details.typeName, 'sanitizer finding');
    assert.match(info.body.details.message, /race/i);
    // Both sides: two waves named in the description.
    const waves = info.body.description.match(/wave \d+/g) || [];
    assert.ok(new Set(waves).size >= 2, info.body.description);
  } finally {
    await dc.stop();
  }
});

test('launch options: grid, seed, checks', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce, grid: 1, seed: 7, resident: 1, checks: ['races'] });
    const threads = (await dc.threadsRequest()).body.threads;
    assert.strictEqual(threads.length, 2);
    const findings = await dc.evaluateRequest({ expression: 'info findings', context: 'repl' });
    assert.match(findings.body.result, /races on/);
  } finally {
    await dc.stop();
  }
});

// A race between workgroups names the atomic missing its release by source line, as
// `check` and the REPL do (exceptionInfo gave its address).
test('exceptionInfo names a race\'s atomic by its line', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.lastBlockNoWait }, async () => {
      await dc.setExceptionBreakpointsRequest({ filters: ['faults', 'races'] });
    });
    const found = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(found.body.reason, 'exception');
    const info = await dc.exceptionInfoRequest({ threadId: found.body.threadId });
    assert.strictEqual(info.body.details.message, 'data race on global:0x100000000 (4 bytes) between workgroups 0 and 3: no release before the atomic at line 26');
  } finally {
    await dc.stop();
  }
});

// Each other detector group's filter: the run stops at its finding, with the engine's
// text, and exceptionInfo names the finding.
for (const [filter, kernel, says, line] of [
  ['sync', 'divergentBarrier', /skipped a barrier/, 11],
  ['init', 'uninit', /u5 is read before it was written/, 5],
  ['hazards', 'hazard', /v3 is read before wait\.vm/, 29],
]) {
  test(`the ${filter} filter stops at its finding`, async () => {
    const dc = await start();
    try {
      const entry = await launchStopped(dc, { program: KERNELS[kernel] }, async () => {
        await dc.setExceptionBreakpointsRequest({ filters: ['faults', filter] });
      });
      const found = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
      assert.strictEqual(found.body.reason, 'exception');
      assert.match(found.body.text, says);
      const info = await dc.exceptionInfoRequest({ threadId: found.body.threadId });
      assert.strictEqual(info.body.details.typeName, 'sanitizer finding');
      assert.match(info.body.description, says);
      // Stopped after the instruction that made the finding.
      const frame = (await dc.stackTraceRequest({ threadId: found.body.threadId })).body.stackFrames[0];
      assert.strictEqual(frame.line, line);
    } finally {
      await dc.stop();
    }
  });
  test(`without the ${filter} filter the same kernel runs to its end`, async () => {
    const dc = await start();
    try {
      const entry = await launchStopped(dc, { program: KERNELS[kernel] });
      const exited = dc.waitForEvent('exited');
      await dc.continueRequest({ threadId: entry.body.threadId });
      assert.strictEqual((await exited).body.exitCode, 0);
    } finally {
      await dc.stop();
    }
  });
}

test('a deadlocked launch refuses to run forward, and steps back', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.deadlock });
    const thread = entry.body.threadId;
    // Workgroup 1 deadlocks while the others can still run: a continue runs them.
    let stop = await until(dc, () => dc.continueRequest({ threadId: thread }));
    assert.strictEqual(stop.body.reason, 'exception');
    assert.match(stop.body.description, /^Deadlock: deadlock in workgroup 1: /);
    stop = await until(dc, () => dc.continueRequest({ threadId: thread }));
    assert.match(stop.body.description, /^Deadlock: deadlock in workgroup 1: /);
    // Now nothing can run: the requests fail with why, and no stop comes again.
    let stops = 0;
    dc.on('stopped', () => { stops += 1; });
    const why = /Cannot run: the launch is deadlocked: deadlock in workgroup 1: wave 2 \(pc 0x0058\) waits at the barrier at 0x0054; wave 3 \(exited\) will never arrive; nothing can run/;
    await assert.rejects(dc.continueRequest({ threadId: thread }), why);
    await assert.rejects(dc.nextRequest({ threadId: stop.body.threadId }), why);
    await assert.rejects(dc.stepInRequest({ threadId: stop.body.threadId }), why);
    await assert.rejects(dc.stepOutRequest({ threadId: stop.body.threadId }), why);
    assert.strictEqual(stops, 0);
    // The debug console's `continue` says the same, as its stop.
    stop = await until(dc, () => dc.evaluateRequest({ expression: 'c', context: 'repl' }));
    assert.match(stop.body.description, /^Cannot run: the launch is deadlocked: /);
    const info = await dc.exceptionInfoRequest({ threadId: stop.body.threadId });
    assert.strictEqual(info.body.exceptionId, 'deadlock');
    assert.match(info.body.description, /^Cannot run: the launch is deadlocked: /);
    // Backwards still works.
    stop = await until(dc, () => dc.stepBackRequest({ threadId: stop.body.threadId }));
    assert.strictEqual(stop.body.reason, 'step');
  } finally {
    await dc.stop();
  }
});
