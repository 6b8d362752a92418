// initialize, launch with stopOnEntry, threads, stackTrace, scopes and variables,
// setVariable, evaluate (hover, watch, repl), disconnect.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped, until } = require('./helpers');

test('capabilities are stated', async () => {
  const dc = await start();
  try {
    const r = await dc.initializeRequest();
    const caps = r.body;
    for (const c of ['supportsConfigurationDoneRequest', 'supportsStepBack', 'supportsDataBreakpoints',
      'supportsLogPoints', 'supportsDisassembleRequest', 'supportsReadMemoryRequest',
      'supportsInstructionBreakpoints', 'supportsExceptionInfoRequest', 'supportsSetVariable',
      'supportsCompletionsRequest']) {
      assert.strictEqual(caps[c], true, c);
    }
    // Exactly these are claimed: a new claim comes with its test.
    const claimed = Object.keys(caps).filter((k) => caps[k] === true).sort();
    assert.deepStrictEqual(claimed, ['supportsBreakpointLocationsRequest', 'supportsCompletionsRequest',
      'supportsConditionalBreakpoints', 'supportsConfigurationDoneRequest', 'supportsDataBreakpointBytes',
      'supportsDataBreakpoints', 'supportsDisassembleRequest', 'supportsEvaluateForHovers',
      'supportsExceptionInfoRequest', 'supportsFunctionBreakpoints', 'supportsGotoTargetsRequest',
      'supportsHitConditionalBreakpoints', 'supportsInstructionBreakpoints', 'supportsLogPoints',
      'supportsReadMemoryRequest', 'supportsRestartRequest', 'supportsSetVariable', 'supportsStepBack',
      'supportsSteppingGranularity', 'supportsTerminateRequest', 'supportsWriteMemoryRequest']);
    const filters = caps.exceptionBreakpointFilters.map((f) => f.filter);
    assert.deepStrictEqual(filters, ['faults', 'races', 'sync', 'init', 'hazards', 'xlane']);
  } finally {
    await dc.stop();
  }
});

test('a wave per thread, a frame per wave, registers and lanes', async () => {
  const dc = await start();
  try {
    const entry = await launchStopped(dc, { program: KERNELS.lanes }, async () => {
      const r = await dc.setBreakpointsRequest({ source: { path: KERNELS.lanes }, breakpoints: [{ line: 33 }] });
      assert.ok(r.body.breakpoints[0].verified);
    });
    assert.strictEqual(entry.body.reason, 'entry');
    const threads = (await dc.threadsRequest()).body.threads;
    assert.strictEqual(threads.length, 8);
    assert.strictEqual(threads[0].name, 'wave 0 (workgroup 0)');
    assert.strictEqual(threads[3].name, 'wave 3 (workgroup 1)');

    const hit = await until(dc, () => dc.continueRequest({ threadId: entry.body.threadId }));
    assert.strictEqual(hit.body.reason, 'breakpoint');
    const threadId = hit.body.threadId;
    const frames = (await dc.stackTraceRequest({ threadId })).body.stackFrames;
    assert.strictEqual(frames.length, 1);
    assert.strictEqual(frames[0].line, 33);
    assert.match(frames[0].source.path, /lanes\.s$/);
    assert.match(frames[0].instructionPointerReference, /^0x[0-9a-f]+$/);
    assert.match(frames[0].name, /<odd>/);

    const scopes = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes;
    assert.deepStrictEqual(scopes.map((s) => s.name), ['Registers', 'Vector registers', 'Buffers']);
    const regs = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
    const exec = regs.find((v) => v.name === 'exec');
    assert.match(exec.value, /^0xaaaaaaaa/);
    const vectors = (await dc.variablesRequest({ variablesReference: scopes[1].variablesReference })).body.variables;
    const v3 = vectors.find((v) => v.name === 'v3');
    assert.ok(v3.variablesReference > 0);
    const lanes = (await dc.variablesRequest({ variablesReference: v3.variablesReference })).body.variables;
    assert.strictEqual(lanes.length, 32);
    assert.match(lanes[0].value, /\(inactive\)$/);
    assert.doesNotMatch(lanes[1].value, /inactive/);
    const buffers = (await dc.variablesRequest({ variablesReference: scopes[2].variablesReference })).body.variables;
    assert.strictEqual(buffers[0].name, 'out');
    assert.match(buffers[0].memoryReference, /^global:0x/);

    // setVariable writes through the engine's `set`.
    const set = await dc.setVariableRequest({ variablesReference: scopes[0].variablesReference, name: 'u20', value: '41 + 1' });
    assert.match(set.body.value, /\(42\)$/);
    const lane = await dc.setVariableRequest({ variablesReference: v3.variablesReference, name: '[1]', value: '7' });
    assert.match(lane.body.value, /\(7\)/);

    // Hover and watch evaluate expressions in the frame's wave; the console runs commands.
    const hover = await dc.evaluateRequest({ expression: 'u20', context: 'hover', frameId: frames[0].id });
    assert.strictEqual(hover.body.result, "42");
    const watch = await dc.evaluateRequest({ expression: 'u20 * 2', context: 'watch', frameId: frames[0].id });
    assert.strictEqual(watch.body.result, "84");
    const repl = await dc.evaluateRequest({ expression: 'info waves', context: 'repl', frameId: frames[0].id });
    assert.match(repl.body.result, /Wave\s+WG/);
    await assert.rejects(dc.evaluateRequest({ expression: 'nonsense-command', context: 'repl' }));

    // The console completes as the REPL's Tab does.
    const words = await dc.completionsRequest({ text: 'info br', column: 8 });
    const br = words.body.targets.find((t) => t.label === 'breakpoints');
    assert.ok(br, JSON.stringify(words.body));
    assert.strictEqual(br.start, 6);
    assert.strictEqual(br.length, 2);
    const labels = await dc.completionsRequest({ text: 'break o', column: 8 });
    assert.ok(labels.body.targets.some((t) => t.label === 'odd'), JSON.stringify(labels.body));
  } finally {
    await dc.stop();
  }
});

test('thread events follow the waves as workgroups come and go', async () => {
  const dc = await start();
  try {
    const events = [];
    dc.on('thread', (e) => events.push(`${e.body.reason} ${e.body.threadId}`));
    // Two workgroups of two waves, one resident at a time.
    const entry = await launchStopped(dc, { program: KERNELS.reduce, grid: 2, resident: 1 }, async () => {
      await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'combine' }] });
    });
    assert.deepStrictEqual(events, ['started 1', 'started 2']);
    let stop = entry;
    // Both waves of workgroup 0 at combine, then workgroup 1's first.
    for (let i = 0; i < 3; i++) stop = await until(dc, () => dc.continueRequest({ threadId: stop.body.threadId }));
    assert.ok(stop.body.threadId >= 3, JSON.stringify(stop.body));
    assert.deepStrictEqual(events, ['started 1', 'started 2', 'exited 1', 'exited 2', 'started 3', 'started 4']);
    const names = (await dc.threadsRequest()).body.threads.map((t) => t.name);
    assert.deepStrictEqual(names, ['wave 2 (workgroup 1)', 'wave 3 (workgroup 1)']);
  } finally {
    await dc.stop();
  }
});

test('disconnect ends the adapter', async () => {
  const dc = await start();
  const exited = new Promise((resolve) => dc._adapterProcess.on('exit', (code) => resolve(code)));
  await launchStopped(dc, { program: KERNELS.reduce });
  const r = await dc.disconnectRequest({});
  assert.strictEqual(r.success, true);
  assert.strictEqual(await exited, 0);
});
