/**
 * Node's process warnings on a child's standard error, each gathered into one event. Node writes
 * `(node:PID) Warning: ...` over several lines, then, after a process's first warning only,
 * `(Use \`node --trace-warnings ...\` ...)`. Every service loads the same libraries, so the same
 * warning comes from each process: `firstTime` tells which to show (the log files get them all).
 */

const WARNING_START = /^\(node:\d+\) /;
const TRACE_HINT = /^\(Use `node --trace-(warnings|deprecation)/;

/** How long a warning's lines may take to arrive: Node writes one in a single write. */
const GATHER_MS = 50;

export interface WarningLines {
  /** Takes the line when it belongs to a warning; false for any other line. */
  take(line: string): boolean;
  /** Emits a warning still being gathered (the stream ended). */
  flush(): void;
}

/** Gathers the warnings of one stream; `emit` gets each one's text, lines joined by spaces. */
export function warningLines(emit: (text: string) => void): WarningLines {
  let lines: string[] | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!lines) return;
    const text = lines
      .map((line) => line.trim())
      .filter(Boolean)
      .join(' ');
    lines = undefined;
    emit(text);
  };
  return {
    take(line) {
      if (WARNING_START.test(line)) {
        flush();
        lines = [line.replace(WARNING_START, '')];
      } else if (TRACE_HINT.test(line)) {
        // Ends the warning before it; said the same for every process, so not shown.
        flush();
        return true;
      } else if (lines) {
        lines.push(line);
      } else {
        return false;
      }
      clearTimeout(timer);
      timer = setTimeout(flush, GATHER_MS);
      timer.unref();
      return true;
    },
    flush,
  };
}

/** `firstTime(text)`: true once per distinct warning text, across every process. */
export function onceEach(): (text: string) => boolean {
  const seen = new Set<string>();
  return (text) => {
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  };
}
