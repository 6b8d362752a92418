// disassemble, readMemory and writeMemory.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { KERNELS, start, launchStopped } = require('./helpers');

test('disassemble around the PC, with lines and labels', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const r = await dc.disassembleRequest({ memoryReference: '0x0', instructionOffset: -2, instructionCount: 5 });
    const ins = r.body.instructions;
    assert.strictEqual(ins.length, 5);
    assert.strictEqual(ins[0].presentationHint, 'invalid');
    assert.strictEqual(ins[2].address, '0x0');
    assert.strictEqual(ins[2].instruction, 'uwgid u4');
    assert.strictEqual(ins[2].line, 12);
    const combine = await dc.disassembleRequest({ memoryReference: '0x3c', instructionCount: 1 });
    assert.strictEqual(combine.body.instructions[0].symbol, 'combine');
  } finally {
    await dc.stop();
  }
});

test('read and write global memory', async () => {
  const dc = await start();
  try {
    await launchStopped(dc, { program: KERNELS.reduce });
    const read = await dc.customRequest('readMemory', { memoryReference: 'global:in', count: 8 });
    const bytes = Buffer.from(read.body.data, 'base64');
    // `in` is an iota from 1.
    assert.deepStrictEqual([...bytes], [1, 0, 0, 0, 2, 0, 0, 0]);
    const w = await dc.customRequest('writeMemory', {
      memoryReference: 'global:in', offset: 4, data: Buffer.from([9, 0, 0, 0]).toString('base64'),
    });
    assert.strictEqual(w.body.bytesWritten, 4);
    const again = await dc.customRequest('readMemory', { memoryReference: 'global:in', offset: 4, count: 4 });
    assert.deepStrictEqual([...Buffer.from(again.body.data, 'base64')], [9, 0, 0, 0]);
    // Past the end of the buffers: what cannot be read is counted, not an error.
    const past = await dc.customRequest('readMemory', { memoryReference: 'global:in', offset: 1020, count: 64 });
    assert.ok(past.body.unreadableBytes > 0);
  } finally {
    await dc.stop();
  }
});
