import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZCompany } from './company.ts';

/** PUT /admin/companies/{id}/activate (pending only) and /suspend (active only) answer alike. */
export const ZChangeCompanyStatusResponse = successEnvelope(z.object({ company: ZCompany }));
