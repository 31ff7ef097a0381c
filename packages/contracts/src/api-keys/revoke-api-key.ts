import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZApiKey } from './api-key.ts';

export const ZRevokeApiKeyResponse = successEnvelope(z.object({ apiKey: ZApiKey }));
export type TRevokeApiKeyResponse = z.infer<typeof ZRevokeApiKeyResponse>;
