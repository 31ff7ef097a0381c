import { successEnvelope } from '../common/envelope.ts';
import { ZListServicesData, ZListServicesQuery } from './list-services.ts';

/** GET /admin/services: every company's services, system_admin only; same filters as GET /services. */
export const ZListAdminServicesQuery = ZListServicesQuery;
export const ZListAdminServicesResponse = successEnvelope(ZListServicesData);
