import { z } from 'zod';
import { ErrorBodySchema } from '../../src/errors';
import { buildOpenApiDocument } from '../../src/openapi';
import { defineRoute } from '../../src/route';

describe('buildOpenApiDocument', () => {
  const route = defineRoute({
    method: 'put',
    path: '/users/:id',
    summary: 'Update a user',
    request: {
      params: z.object({ id: z.string().uuid() }),
      query: z.object({ notify: z.enum(['yes', 'no']).optional() }),
      headers: z.object({ 'x-tenant': z.string().describe('Tenant id') }),
      body: z.object({ name: z.string().min(1), age: z.number().int().optional() }),
    },
    responses: { 200: { description: 'Updated', schema: z.object({ id: z.string() }) } },
    handler: () => undefined,
  });
  const doc = buildOpenApiDocument({ title: 'users', version: '1.2.3' }, [route], {
    errorSchema: ErrorBodySchema,
  });
  const op = doc.paths['/users/{id}']?.put as Record<string, any>;

  it('converts express paths and documents every parameter', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(op.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ format: 'uuid' }),
      },
      {
        name: 'notify',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['yes', 'no'] },
      },
      {
        name: 'x-tenant',
        in: 'header',
        required: true,
        description: 'Tenant id',
        schema: { type: 'string' },
      },
    ]);
  });

  it('documents the request body and responses from the same schemas', () => {
    expect(op.requestBody.required).toBe(true);
    const body = op.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name']);
    expect(body.properties.name).toEqual({ type: 'string', minLength: 1 });
    expect(op.responses['200'].content['application/json'].schema.properties.id).toEqual({
      type: 'string',
    });
  });

  it('documents the 400 and 413 the kit answers on its own', () => {
    expect(Object.keys(op.responses)).toEqual(['200', '400', '413']);
    expect(
      op.responses['400'].content['application/json'].schema.properties.error.required,
    ).toEqual(['code', 'message']);
  });
});
