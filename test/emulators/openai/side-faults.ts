// The scripted faults the side routes (embeddings, rerank) answer alike: a 5xx, a request that
// never answers, a dropped connection, and a proxy's HTML page instead of JSON.
import type { ServerResponse } from 'node:http';
import { sendJson, untilAborted } from './http.ts';
import { errorBody } from './wire.ts';

/** Answers `fault` when it is one of the shared ones and returns true; else returns false. */
export async function answerSideFault(
  res: ServerResponse,
  fault: string | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  switch (fault) {
    case 'http500':
      sendJson(res, 500, errorBody('Internal server error', 'InternalServerError', 500));
      return true;
    case 'http503':
      sendJson(res, 503, errorBody('The model is loading.', 'ServiceUnavailableError', 503));
      return true;
    case 'hang':
      await untilAborted(signal);
      return true;
    case 'reset':
      res.socket?.destroy();
      return true;
    case 'not_json':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
      return true;
    default:
      return false;
  }
}
