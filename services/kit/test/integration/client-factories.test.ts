// The Redis and OpenSearch client factories against the servers of `make testenv`.
import { randomUUID } from 'node:crypto';
import { createOpenSearchClient } from '@pelita/kit';
import { createRedisClient } from '@pelita/kit/redis-client';
import { requireEnv } from '@pelita/testenv';

const { REDIS_URL, OPENSEARCH_URL } = requireEnv('REDIS_URL', 'OPENSEARCH_URL');

describe('createRedisClient', () => {
  it('connects from REDIS_URL, with options such as a key prefix', async () => {
    const prefix = `kit-test-${randomUUID()}:`;
    const prefixed = createRedisClient({ REDIS_URL }, { keyPrefix: prefix });
    const plain = createRedisClient({ REDIS_URL });
    try {
      await prefixed.set('key', 'value', 'EX', 60);
      expect(await plain.get(`${prefix}key`)).toBe('value');
      expect(plain.options.maxRetriesPerRequest).toBe(2);
    } finally {
      await plain.del(`${prefix}key`);
      prefixed.disconnect();
      plain.disconnect();
    }
  });

  it('sends REDIS_PASSWORD in place of the URL password', () => {
    const client = createRedisClient(
      { REDIS_URL: 'redis://:in-the-url@127.0.0.1:1', REDIS_PASSWORD: 'from-the-secret' },
      { lazyConnect: true },
    );
    expect(client.options.password).toBe('from-the-secret');
    client.disconnect();
  });
});

describe('createOpenSearchClient', () => {
  it('reaches OPENSEARCH_URL', async () => {
    const client = createOpenSearchClient({ OPENSEARCH_URL }, { requestTimeout: 5000 });
    try {
      const info = await client.info();
      expect(info.body.version.number).toMatch(/^\d+\./);
    } finally {
      await client.close();
    }
  });
});
