// @ts-check
/**
 * Server-sent events read from a fetch() answer as they arrive: EventSource cannot POST a
 * question, so the pages read the stream themselves, event by event, without buffering it.
 */

/**
 * @param {Response} response an answer with a `text/event-stream` body
 * @returns {AsyncGenerator<{ event: string, data: any }>}
 */
export async function* readEvents(response) {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    // A block ends with an empty line (LF or CRLF). A CR at the very end may be half of a CRLF.
    const normalised = buffer.replace(/\r\n?(?!$)/g, '\n');
    const blocks = normalised.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const parsed = parseBlock(block);
      if (parsed) yield parsed;
    }
  }
  const last = parseBlock(buffer);
  if (last) yield last;
}

/**
 * One event block: `event:` names it (default `message`), `data:` lines are joined by LF and
 * parsed as JSON; comments (`:`) and blocks without data are skipped.
 * @param {string} block
 */
function parseBlock(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { event, data: JSON.parse(data.join('\n')) };
}
