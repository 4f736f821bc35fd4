import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events.js';

/** A body that arrives in these chunks, as a network cuts it. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(stream) {
      for (const chunk of chunks) stream.enqueue(encoder.encode(chunk));
      stream.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(stream)) events.push(event);
  return events;
}

describe('readServerSentEvents', () => {
  it('reads named events and their data, skipping comments, however the chunks fall', async () => {
    const events = await read(
      body(
        ': beat\n\nevent: in',
        'box\ndata: {"pending":1}\n',
        '\nevent: inbox\r\ndata: {"pending":',
        '2}\r\n\r\ndata: a\ndata: b\nid: 7\n\n',
      ),
    );
    expect(events).toEqual([
      { event: 'inbox', data: '{"pending":1}' },
      { event: 'inbox', data: '{"pending":2}' },
      { event: 'message', data: 'a\nb' },
    ]);
  });

  it('keeps a character cut between two chunks whole', async () => {
    const bytes = new TextEncoder().encode('data: café\n\n');
    const cut = bytes.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(s) {
        s.enqueue(bytes.slice(0, cut));
        s.enqueue(bytes.slice(cut));
        s.close();
      },
    });
    expect(await read(stream)).toEqual([{ event: 'message', data: 'café' }]);
  });

  it('drops an event the stream ended in the middle of', async () => {
    expect(await read(body('data: whole\n\ndata: cut'))).toEqual([
      { event: 'message', data: 'whole' },
    ]);
  });

  it('ends when the signal aborts, mid-stream', async () => {
    const controller = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      start(s) {
        s.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
    });
    const events: ServerSentEvent[] = [];
    for await (const event of readServerSentEvents(stream, controller.signal)) {
      events.push(event);
      controller.abort();
    }
    expect(events).toEqual([{ event: 'message', data: 'first' }]);
  });
});
