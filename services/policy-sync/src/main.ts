import '@pelita/kit/instrument'; // first: tracing patches http, undici and ioredis as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createPolicySyncService } from './service';

runService({ name: 'policy-sync', settings: settingsSchema, create: createPolicySyncService });
