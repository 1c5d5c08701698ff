import '@pelita/kit/instrument'; // first: tracing patches http and express as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createHttpProxyService } from './service';

runService({ name: 'http-proxy', settings: settingsSchema, create: createHttpProxyService });
