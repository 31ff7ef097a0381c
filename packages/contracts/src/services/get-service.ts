import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZService } from './service.ts';

export const ZGetServiceResponse = successEnvelope(z.object({ service: ZService }));
export type TGetServiceResponse = z.infer<typeof ZGetServiceResponse>;
