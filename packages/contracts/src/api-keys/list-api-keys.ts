import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZApiKey } from './api-key.ts';

export const ZListApiKeysResponse = successEnvelope(z.object({ apiKeys: z.array(ZApiKey) }));
export type TListApiKeysResponse = z.infer<typeof ZListApiKeysResponse>;
