const LAST_CHUNK = Buffer.from('0\r\n\r\n');

export type HttpAnswer =
  /** Not all of it has arrived: keep `pending` and read again with the next chunk. */
  | { kind: 'partial'; pending: Buffer }
  /** Not an HTTP/1.1 answer whose end can be found, or more bytes than it holds: the connection is unusable. */
  | { kind: 'broken'; why: string }
  | { kind: 'whole'; status: number; closes: boolean; body: () => string };

/**
 * One HTTP/1.1 answer read off a keep-alive connection by the bench's lean load generators (one
 * request in flight per connection, so an answer never shares its bytes with the next one).
 * `pending` is what an earlier call returned as partial.
 */
export function readHttpAnswer(pending: Buffer | null, chunk: Buffer): HttpAnswer {
  const data = pending ? Buffer.concat([pending, chunk]) : chunk;
  const headerEnd = data.indexOf('\r\n\r\n');
  if (headerEnd < 0) return { kind: 'partial', pending: data };
  const head = data.toString('latin1', 0, headerEnd).toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  // A chunked answer (none of the API's JSON, but an error page could be) ends with its last chunk.
  const chunked = !length && /\r\ntransfer-encoding: *chunked/.test(head);
  if (!head.startsWith('http/1.1 ') || (!length && !chunked))
    return { kind: 'broken', why: `unreadable answer: ${head.slice(0, 200)}` };
  const end = length ? headerEnd + 4 + Number(length[1]) : data.length;
  if (data.length < end || (chunked && !data.subarray(-5).equals(LAST_CHUNK)))
    return { kind: 'partial', pending: data };
  if (data.length > end) return { kind: 'broken', why: 'more bytes than the answer holds' };
  return {
    kind: 'whole',
    status: Number(head.slice(9, 12)),
    closes: /\r\nconnection: *close/.test(head),
    body: () => data.toString('utf8', headerEnd + 4, end),
  };
}
