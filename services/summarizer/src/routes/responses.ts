/** Error answers shared by the upload endpoints, for the OpenAPI document. */
import { ErrorBodySchema, type ResponseSpec } from '@pelita/kit';

const error = (description: string): ResponseSpec => ({ description, schema: ErrorBodySchema });

export const uploadErrorResponses: Record<number, ResponseSpec> = {
  400: error(
    'Invalid form: `file` missing (`invalid_request`), empty or without words (`empty_file`), ' +
      'not UTF-8/UTF-16 text (`not_text`), or a bad parameter (`invalid_request`)',
  ),
  413: error('The file exceeds MAX_UPLOAD_BYTES (`payload_too_large`)'),
  415: error('The body is not multipart/form-data (`unsupported_media_type`)'),
  502: error(
    'The model server answered an error (`llm_error`) or, three times, nothing usable ' +
      '(`llm_invalid_output`), for every chunk or for the final merge',
  ),
  503: error(
    'The model server is unreachable (`llm_unreachable`), answers 503 (`llm_unavailable`) or ' +
      'rate-limits (`llm_rate_limited`) after every retry, for every chunk or for the final merge',
  ),
  504: error('The model server did not answer within LLM_TIMEOUT (`llm_timeout`)'),
};
