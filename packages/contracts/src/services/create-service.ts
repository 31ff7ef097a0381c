import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZService, ZServiceForm } from './service.ts';

export const ZCreateServiceRequest = ZServiceForm;
export type TCreateServiceRequest = z.input<typeof ZCreateServiceRequest>;
export const ZCreateServiceResponse = successEnvelope(z.object({ service: ZService }));
export type TCreateServiceResponse = z.infer<typeof ZCreateServiceResponse>;
