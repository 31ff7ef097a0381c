import { successEnvelope } from '../common/envelope.ts';
import { ZDashboardStats } from './dashboard-stats.ts';

export const ZGetDashboardStatsResponse = successEnvelope(ZDashboardStats);
