/**
 * Answers of the planning prompts the core backend sends before a chat answer, deterministic so
 * tests know what comes: for a `<schema>` block (text-to-SQL), one `SELECT` of the table the
 * question names (its name or its singular in the question; the first table otherwise); for an
 * `<endpoints>` block (text-to-API), `{"endpoint_id", "params"}` of the endpoint sharing the
 * most words with the question, with every parameter the question gives as `name value` or
 * `name=value`.
 */
const wordsIn = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

function block(instructions: string, tag: string): string[] | undefined {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(instructions);
  return match?.[1]
    ?.split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

function sqlFor(schema: string[], question: string): string | undefined {
  const tables = schema.map((line) => /^([\w.]+)\s*\(/.exec(line)?.[1]).filter(Boolean) as string[];
  if (tables.length === 0) return undefined;
  const asked = wordsIn(question);
  const named = tables.find((table) => {
    const name = table.split('.').pop()!.toLowerCase();
    return asked.has(name) || asked.has(name.replace(/s$/, ''));
  });
  return `SELECT * FROM ${named ?? tables[0]!} LIMIT 20`;
}

/** Endpoint lines are `id | METHOD /path | description | params: a, b`. */
function endpointFor(endpoints: string[], question: string): string | undefined {
  const asked = wordsIn(question);
  let best: { id: string; params: string[]; score: number } | undefined;
  for (const line of endpoints) {
    const [id, route = '', description = '', params = ''] = line.split('|').map((s) => s.trim());
    if (!id) continue;
    const score = [...wordsIn(`${route} ${description}`)].filter((w) => asked.has(w)).length;
    if (!best || score > best.score) {
      best = {
        id,
        params: params
          .replace(/^params:\s*/, '')
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
        score,
      };
    }
  }
  if (!best) return undefined;
  const params: Record<string, string> = {};
  for (const name of best.params) {
    const value = new RegExp(`\\b${name}\\s*[= ]\\s*([\\w.-]+)`, 'i').exec(question)?.[1];
    if (value) params[name] = value;
  }
  return JSON.stringify({ endpoint_id: best.id, params });
}

/** The answer of a planning prompt, or undefined when the instructions hold none. */
export function toolAnswer(instructions: string, question: string): string | undefined {
  const schema = block(instructions, 'schema');
  if (schema) return sqlFor(schema, question);
  const endpoints = block(instructions, 'endpoints');
  if (endpoints) return endpointFor(endpoints, question);
  return undefined;
}
