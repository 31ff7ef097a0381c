import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZService, ZServiceForm } from './service.ts';

/** The whole form again (PUT); companyId moves a service to another company, system_admin only. */
export const ZUpdateServiceRequest = ZServiceForm;
export type TUpdateServiceRequest = z.input<typeof ZUpdateServiceRequest>;
export const ZUpdateServiceResponse = successEnvelope(z.object({ service: ZService }));
export type TUpdateServiceResponse = z.infer<typeof ZUpdateServiceResponse>;
