import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

export const ZDeleteUserResponse = successEnvelope(z.object({ deleted: z.literal(true) }));
