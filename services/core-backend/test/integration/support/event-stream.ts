/**
 * Reads `text/event-stream` as a browser's EventSource does: incrementally, event by event, as
 * the bytes arrive (not after the whole body).
 */
export interface StreamEvent {
  event: string;
  data: unknown;
  /** When it arrived (ms since the reader started). */
  at: number;
}

export async function readEvents(res: Response, onEvent?: (e: StreamEvent) => void) {
  const events: StreamEvent[] = [];
  const started = Date.now();
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      const parsed = {
        event,
        data: JSON.parse(data.join('\n')) as unknown,
        at: Date.now() - started,
      };
      events.push(parsed);
      onEvent?.(parsed);
    }
  }
  return events;
}
