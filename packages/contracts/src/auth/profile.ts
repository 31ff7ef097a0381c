import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZUser } from './user.ts';

export const ZProfileResponse = successEnvelope(z.object({ user: ZUser }));
export type TProfileResponse = z.infer<typeof ZProfileResponse>;
