import type { TService } from '@sms/contracts/services/service';
import type { ServiceWithCompany } from './services.repository.ts';

export function presentService(row: ServiceWithCompany): TService {
  return {
    id: row.id,
    name: row.name,
    shortcode: row.shortcode,
    shortCode: row.shortcode,
    keyword: row.keyword,
    description: row.description,
    billingType: row.billing_type as TService['billingType'],
    status: row.status as TService['status'],
    companyId: row.company_id,
    company: { name: row.company_name, status: row.company_status as TService['company']['status'] },
    subscriber_count: row.subscriber_count,
    messageCount: row.message_count,
    lastActivity: row.last_activity_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
