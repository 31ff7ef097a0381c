import type { TUser } from '@sms/contracts/auth/user';
import { api } from '../../../lib/api-client.ts';

export function getProfile(signal?: AbortSignal) {
  return api.get<{ user: TUser }>('/auth/profile', { signal });
}
