// Every message the adapter sends, checked against the protocol's own definitions: the
// TypeScript declarations of @vscode/debugprotocol (installed with the client). Each
// property name must be one the protocol declares (a misspelt `requestSeq` fails), each
// event one it declares, each response carry the fields a response must have.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const { KERNELS, raw } = require('./helpers');

const dts = fs.readFileSync(require.resolve('@vscode/debugprotocol/lib/debugProtocol.d.ts'), 'utf8');
const names = new Set([...dts.matchAll(/^\s*(\w+)\??\s*:/gm)].map((m) => m[1]));
const events = new Set([...dts.matchAll(/event:\s*'(\w+)'/g)].map((m) => m[1]));

// Keys of an object, recursively; `data` of a finding-free output, `arguments` and the
// like are free-form in the protocol and are not walked.
function keys(value, out = []) {
  if (Array.isArray(value)) value.forEach((v) => keys(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keys(v, out);
    }
  }
  return out;
}

test('every message uses the protocol\'s names', async () => {
  const c = raw();
  try {
    await c.request('initialize', { clientID: 'schema' });
    await c.request('launch', { program: KERNELS.lanes, stopOnEntry: true });
    await c.request('setBreakpoints', { source: { path: KERNELS.lanes }, breakpoints: [{ line: 33 }, { line: 1 }] });
    await c.request('setFunctionBreakpoints', { breakpoints: [{ name: 'joined' }] });
    await c.request('setInstructionBreakpoints', { breakpoints: [{ instructionReference: '0x0' }] });
    await c.request('dataBreakpointInfo', { name: 'global:out' });
    await c.request('setDataBreakpoints', { breakpoints: [{ dataId: 'scratch:4:4', accessType: 'write' }] });
    await c.request('setExceptionBreakpoints', { filters: ['faults', 'races'] });
    await c.request('breakpointLocations', { source: { path: KERNELS.lanes }, line: 1, endLine: 40 });
    await c.request('configurationDone', {});
    for (let i = 0; i < 4; i++) {
      await c.request('continue', { threadId: 1 });
      await c.next((m) => m.type === 'event' && m.event === 'stopped');
    }
    await c.request('threads');
    await c.request('stackTrace', { threadId: 1 });
    const scopes = await c.request('scopes', { frameId: 1 });
    for (const s of scopes.body.scopes) await c.request('variables', { variablesReference: s.variablesReference });
    await c.request('variables', { variablesReference: 1024 + 16 + 3 });
    await c.request('setVariable', { variablesReference: 1025, name: 'u30', value: '1' });
    await c.request('evaluate', { expression: 'v3', context: 'hover', frameId: 1 });
    await c.request('evaluate', { expression: 'info lanes', context: 'repl', frameId: 1 });
    await c.request('completions', { text: 'info ', column: 6 });
    await c.request('disassemble', { memoryReference: '0x0', instructionCount: 4, instructionOffset: -1 });
    await c.request('readMemory', { memoryReference: 'global:out', count: 16 });
    await c.request('writeMemory', { memoryReference: 'global:out', data: 'AAAAAA==' });
    await c.request('gotoTargets', { source: { path: KERNELS.lanes }, line: 36 });
    await c.request('exceptionInfo', { threadId: 1 });
    await c.request('next', { threadId: 1 });
    await c.next((m) => m.type === 'event' && m.event === 'stopped');
    await c.request('stepBack', { threadId: 1 });
    await c.next((m) => m.type === 'event' && m.event === 'stopped');
    await c.request('nonsense', {});
    await c.request('disconnect', {});
    await c.exited;
  } finally {
    c.child.kill();
  }
  assert.ok(c.all.length > 50, `${c.all.length} messages`);
  const unknown = new Set();
  for (const m of c.all) {
    for (const k of keys(m)) if (!names.has(k)) unknown.add(k);
    if (m.type === 'event') assert.ok(events.has(m.event), `event ${m.event}`);
    if (m.type === 'response') {
      for (const k of ['seq', 'type', 'request_seq', 'success', 'command']) assert.ok(k in m, `${k} in ${JSON.stringify(m)}`);
    }
  }
  assert.deepStrictEqual([...unknown], []);
});

// The VS Code manifest (editors/vscode): a debugger of type `wavedbg` that VS Code can
// start, whose launch attributes are the arguments `launch` takes, each accepted.
test('the VS Code manifest contributes the debugger the adapter is', async () => {
  const path = require('node:path');
  const { DebugClient } = require('@vscode/debugadapter-testsupport');
  const { ROOT, WAVEDBG, launchStopped } = require('./helpers');
  const dir = path.join(ROOT, 'editors', 'vscode');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const k of ['name', 'publisher', 'version', 'engines']) assert.ok(manifest[k], k);
  assert.ok(manifest.categories.includes('Debuggers'));
  const [dbg] = manifest.contributes.debuggers;
  assert.strictEqual(dbg.type, 'wavedbg');
  // VS Code runs `runtime program args` with program relative to the extension's folder.
  assert.ok(fs.existsSync(path.join(dir, dbg.program)), dbg.program);
  const props = dbg.configurationAttributes.launch.properties;
  // The fields of LaunchArguments (dap/src/types.rs) but noDebug, which VS Code adds itself.
  assert.deepStrictEqual(Object.keys(props).sort(), ['allowFileOutsideDir', 'checks', 'grid',
    'maxInstructions', 'program', 'quantum', 'resident', 'seed', 'session', 'stopOnEntry', 'workgroup']);
  for (const c of [...dbg.initialConfigurations, ...dbg.configurationSnippets.map((s) => s.body)]) {
    assert.strictEqual(c.type, 'wavedbg');
    for (const k of Object.keys(c)) if (!['type', 'request', 'name'].includes(k)) assert.ok(k in props, k);
  }
  // Started as VS Code would, through the script; each attribute accepted with a value of
  // its schema's type.
  const sample = { program: KERNELS.reduce, grid: 1, workgroup: 64, seed: 3, quantum: 4, resident: 1,
    maxInstructions: 0, checks: props.checks.items.enum.slice(0, 2), stopOnEntry: true, allowFileOutsideDir: false };
  for (const [k, v] of Object.entries(sample)) {
    const type = props[k].type === 'integer' ? 'number' : props[k].type;
    assert.strictEqual(Array.isArray(v) ? 'array' : typeof v, type, k);
  }
  process.env.WAVEDBG = WAVEDBG;
  const dc = new DebugClient(dbg.runtime, path.join(dir, dbg.program), 'wavedbg', { cwd: dir });
  await dc.start();
  try {
    const entry = await launchStopped(dc, sample);
    assert.strictEqual(entry.body.reason, 'entry');
    assert.strictEqual((await dc.threadsRequest()).body.threads.length, 2);
  } finally {
    await dc.stop();
  }
});
