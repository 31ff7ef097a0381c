import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZCompany, ZCompanyForm } from './company.ts';

/** Same rules as creating; an omitted, blank or masked secret keeps the stored one, null clears it. */
export const ZUpdateCompanyRequest = ZCompanyForm;
export type TUpdateCompanyRequest = z.input<typeof ZUpdateCompanyRequest>;
export const ZUpdateCompanyResponse = successEnvelope(z.object({ company: ZCompany }));
