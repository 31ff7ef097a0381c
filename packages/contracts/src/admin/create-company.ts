import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZCompany, ZCompanyForm } from './company.ts';

export const ZCreateCompanyRequest = ZCompanyForm;
export type TCreateCompanyRequest = z.input<typeof ZCreateCompanyRequest>;
export const ZCreateCompanyResponse = successEnvelope(z.object({ company: ZCompany }));
