/** A minimal Dockerfile reader for the image rules: instructions grouped into build stages. */

export interface Instruction {
  /** Upper-cased: FROM, RUN, COPY, ... */
  keyword: string;
  /** The rest, continuation lines joined. */
  args: string;
  /** 1-based line of the instruction's first line. */
  line: number;
}

export interface Stage {
  /** Image or earlier stage this stage starts from. */
  from: string;
  alias: string | undefined;
  instructions: Instruction[];
}

/** Joins `\` continuations; comments (parser directives included) and blank lines are dropped. */
export function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith('#') || (pending === '' && line === '')) return;
    if (pending === '') start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = pending + line;
    pending = '';
    const match = /^(\S+)\s*([\s\S]*)$/.exec(full);
    if (match) result.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: start });
  });
  return result;
}

export function stages(text: string): Stage[] {
  const result: Stage[] = [];
  for (const instruction of instructions(text)) {
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`line ${instruction.line}: unreadable FROM`);
      result.push({ from: match[1]!, alias: match[2], instructions: [] });
    } else if (result.length > 0) {
      result.at(-1)!.instructions.push(instruction);
    }
  }
  return result;
}

/** The external image a stage is built on, following `FROM <earlier stage>`. */
export function baseImage(all: Stage[], stage: Stage): string {
  const index = all.indexOf(stage);
  const parent = all.slice(0, index).find((s) => s.alias === stage.from);
  return parent ? baseImage(all, parent) : stage.from;
}
