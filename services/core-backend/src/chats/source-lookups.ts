/**
 * What a room's databases and APIs say about a question, found before the answer is written.
 * Text-to-SQL: the model writes one SELECT from the database's schema (listed through db-proxy),
 * and db-proxy runs it read-only (its read-only transaction is rolled back, a writing statement
 * refused) within its statement time-out. Text-to-API: the model picks one endpoint and its
 * parameters from their descriptions (GETs, and endpoints allowed to change data for members who
 * may write knowledge), and http-proxy calls it with the API's credentials. The
 * core backend never connects to either itself.
 *
 * Both planning answers are JSON described by a zod schema, which is also sent to the model
 * server as the answer's `response_format` (kit `structured-output`). A model whose answer never
 * parses still gets its SQL read from the text; an endpoint choice that never parses is no choice.
 *
 * Each source gives one finding for the answer's prompt; a source that fails gives a finding
 * saying so and the answer goes on from the rest.
 */
import { defineAnswerShape, errorMessage, type Logger } from '@pelita/kit';
import { z } from 'zod';
import { mayCall, type Apis } from '../sources/apis';
import type { Databases } from '../sources/databases';
import type { Membership } from '../workspaces/workspaces';
import type { ModelChoice, ModelClient } from './model-client';

export interface Finding {
  type: 'database' | 'api';
  id: string;
  /** Whether the source answered (a failed one is named in the prompt, not in the detail). */
  ok: boolean;
  /** The block the answer's prompt gets. */
  text: string;
}

export interface SourceLookupOptions {
  databases: Databases;
  apis: Apis;
  models: ModelClient;
  logger: Logger;
  /** Rows of a query put in the prompt. */
  maxRows?: number;
  /** Characters one finding may take in the prompt. */
  maxChars?: number;
}

/** The first statement of an answer that is a query, without code fences or a final `;`. */
export function extractSql(answer: string): string | undefined {
  const fenced = /```(?:sql)?\s*([\s\S]*?)```/i.exec(answer)?.[1] ?? answer;
  const sql = fenced.trim().replace(/;\s*$/, '').trim();
  if (!/^(select|with)\b/i.test(sql) || sql.includes(';')) return undefined;
  return sql;
}

/** Text-to-SQL: one statement. */
export const SQL_ANSWER = defineAnswerShape(
  'sql_query',
  z.object({ sql: z.string().describe('exactly one read-only SELECT statement') }),
);

/**
 * Text-to-API: the endpoint and its parameters. Parameters are name/value pairs, not an object:
 * strict structured output admits no free-form object; an object in a prompt-only answer is read
 * as its pairs.
 */
export const ENDPOINT_ANSWER = defineAnswerShape(
  'endpoint_choice',
  z.object({
    endpoint_id: z.string().describe('the id of the chosen endpoint'),
    params: z.preprocess(
      (value) =>
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? Object.entries(value as Record<string, unknown>).map(([name, given]) => ({
              name,
              value: given,
            }))
          : (value ?? []),
      z.array(
        z.object({
          name: z.string(),
          value: z.union([z.string(), z.number(), z.boolean()]).transform(String).pipe(z.string()),
        }),
      ),
    ),
  }),
);

export function createSourceLookups(options: SourceLookupOptions) {
  const maxRows = options.maxRows ?? 50;
  const maxChars = options.maxChars ?? 20_000;
  const cap = (text: string) =>
    text.length > maxChars ? `${text.slice(0, maxChars)}\n[cut at ${maxChars} characters]` : text;

  async function fromDatabase(
    member: Membership,
    id: string,
    question: string,
    choice: ModelChoice,
    signal?: AbortSignal,
  ): Promise<Finding> {
    const database = await options.databases.open(member, id);
    const { name, engine } = database.record;
    const { tables } = await database.tables();
    const schema = Object.entries(tables)
      .map(([table, columns]) => {
        const list = columns.map((c) => `${c.column_name} ${c.data_type}`).join(', ');
        return `${table}(${list})`;
      })
      .join('\n');
    const answer = await options.models.completeJson(
      choice,
      [
        {
          role: 'system',
          content:
            `You write SQL for a ${engine} database. Answer with a JSON object ` +
            `{"sql": "<one read-only SELECT statement that answers the question>"} and nothing ` +
            `else.\n<schema>\n${schema}\n</schema>`,
        },
        { role: 'user', content: question },
      ],
      SQL_ANSWER,
      signal ? { signal } : {},
    );
    // A model that wrote the statement without the JSON around it is taken at its word.
    const sql = extractSql(answer.value?.sql ?? answer.content);
    if (!sql) {
      return {
        type: 'database',
        id,
        ok: false,
        text: `Database "${name}": no query could be written for the question.`,
      };
    }
    const { result, truncated } = await database.query(sql);
    const rows = result.slice(0, maxRows);
    const more = result.length > rows.length || truncated ? ' (more rows not shown)' : '';
    return {
      type: 'database',
      id,
      ok: true,
      text: cap(
        `Database "${name}" (${engine}), query: ${sql}\n` +
          `${rows.length} row(s)${more}:\n${rows.map((row) => JSON.stringify(row)).join('\n')}`,
      ),
    };
  }

  async function fromApi(
    member: Membership,
    apiId: string,
    question: string,
    choice: ModelChoice,
    signal?: AbortSignal,
  ): Promise<Finding> {
    const api = await options.apis.forMember.find(member, apiId);
    const { rows: listed } = await options.apis.forMember.endpoints(member, apiId, {
      page: 1,
      limit: 200,
    });
    // The model is offered only what may be called for this member (tryEndpoint checks it too).
    const endpoints = listed.filter((endpoint) => mayCall(member, endpoint));
    if (endpoints.length === 0) {
      return { type: 'api', id: apiId, ok: false, text: `API "${api.name}" has no endpoints.` };
    }
    const lines = endpoints.map(
      (e) =>
        `${e.id} | ${e.method.toUpperCase()} ${e.path} | ${e.description || e.name} | ` +
        `params: ${e.params.map((p) => p.name).join(', ')}`,
    );
    const answer = await options.models.completeJson(
      choice,
      [
        {
          role: 'system',
          content:
            `Choose the endpoint of the API "${api.name}" that answers the question. Answer with ` +
            `JSON only: {"endpoint_id": "<id>", "params": [{"name": "<name>", "value": "<value>"}]}.\n` +
            `<endpoints>\n${lines.join('\n')}\n</endpoints>`,
        },
        { role: 'user', content: question },
      ],
      ENDPOINT_ANSWER,
      signal ? { signal } : {},
    );
    const picked = answer.value;
    const endpoint = endpoints.find((e) => e.id === picked?.endpoint_id);
    if (!endpoint) {
      return {
        type: 'api',
        id: apiId,
        ok: false,
        text: `API "${api.name}": no endpoint was chosen for the question.`,
      };
    }
    // Only the endpoint's own parameters.
    const values: Record<string, string> = {};
    for (const param of endpoint.params) {
      const given = picked?.params.find((p) => p.name === param.name);
      if (given) values[param.name] = given.value;
    }
    const answered = await options.apis.forMember.tryEndpoint(member, apiId, endpoint.id, values);
    return {
      type: 'api',
      id: apiId,
      ok: answered.status >= 200 && answered.status < 300,
      text: cap(
        `API "${api.name}", ${endpoint.method.toUpperCase()} ${endpoint.path} ` +
          `${JSON.stringify(values)} answered ${answered.status}:\n${answered.body}`,
      ),
    };
  }

  return {
    /** One finding per database and API source of the room, in order. */
    async find(
      member: Membership,
      sources: Array<{ type: string; topic_id: string[] }>,
      question: string,
      choice: ModelChoice,
      signal?: AbortSignal,
    ): Promise<Finding[]> {
      const findings: Finding[] = [];
      for (const source of sources) {
        if (source.type !== 'database' && source.type !== 'api') continue;
        for (const id of source.topic_id) {
          try {
            findings.push(
              source.type === 'database'
                ? await fromDatabase(member, id, question, choice, signal)
                : await fromApi(member, id, question, choice, signal),
            );
          } catch (err) {
            const message = errorMessage(err);
            options.logger.warn({ source: source.type, id, err: message }, 'a source failed');
            findings.push({
              type: source.type,
              id,
              ok: false,
              text: `The ${source.type} ${id} could not be consulted: ${message}`,
            });
          }
        }
      }
      return findings;
    },
  };
}

export type SourceLookups = ReturnType<typeof createSourceLookups>;
