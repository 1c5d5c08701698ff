import '@pelita/kit/instrument'; // first: tracing patches http, express, pg and mysql2 as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createDbProxyService } from './service';

runService({ name: 'db-proxy', settings: settingsSchema, create: createDbProxyService });
