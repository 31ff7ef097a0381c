import { effectiveRole } from '@sms/contracts/auth/roles';
import type { TUser, TUserStatus } from '@sms/contracts/auth/user';

type UserLike = {
  id: number;
  name: string;
  email: string;
  role: string;
  status: string;
  company_id: number | null;
  company_name: string | null;
  created_at: Date;
};

export function firstNameOf(name: string) {
  return name.trim().split(/\s+/)[0] ?? name;
}

export function presentUser(row: UserLike): TUser {
  return {
    id: row.id,
    name: row.name,
    firstName: firstNameOf(row.name),
    email: row.email,
    role: effectiveRole(row.role),
    status: row.status as TUserStatus,
    companyId: row.company_id,
    company: row.company_name === null ? null : { name: row.company_name },
    createdAt: row.created_at.toISOString(),
  };
}
