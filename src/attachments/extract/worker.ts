// Entry point of an extraction worker thread: takes one request at a time from the pool.
import { parentPort } from 'node:worker_threads';
import { extractInThread } from './extract-in-thread.ts';
import { asAttachmentError } from './failure.ts';
import type { ExtractReply, ExtractRequest } from './wire.ts';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

port.on('message', async (req: ExtractRequest) => {
  let reply: ExtractReply;
  try {
    const doc = await extractInThread(req.bytes, req.kind, req.filename, req.limits);
    reply = { id: req.id, ok: true, doc };
  } catch (err) {
    reply = { id: req.id, ok: false, error: asAttachmentError(err, req.filename).toWire() };
  }
  port.postMessage(reply);
});
