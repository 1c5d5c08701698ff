/** Describes an image through an OpenAI-compatible vision chat model (the representation mode). */
import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';

export interface DescribeImage {
  (path: string, mimeType: string, signal?: AbortSignal): Promise<string>;
}

export interface VisionModelOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

const PROMPT =
  'Describe this image from a document for someone who cannot see it: what it shows, ' +
  'any text, numbers or labels in it, and what it means in context. Answer in plain prose.';

export function createImageDescriber(options: VisionModelOptions): DescribeImage {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // The SDK insists on a key; servers without authentication ignore it.
    apiKey: options.apiKey || 'unused',
    timeout: options.timeoutMs,
    maxRetries: 2,
  });
  return async (path, mimeType, signal) => {
    const image = (await readFile(path)).toString('base64');
    const completion = await client.chat.completions.create(
      {
        model: options.model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: PROMPT },
              { type: 'image_url', image_url: { url: `data:${mimeType};base64,${image}` } },
            ],
          },
        ],
      },
      signal ? { signal } : {},
    );
    return completion.choices[0]?.message.content?.trim() ?? '';
  };
}
