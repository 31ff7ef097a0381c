import type { TLoginRequest } from '@sms/contracts/auth/login';
import type { TUser } from '@sms/contracts/auth/user';
import { api } from '../../../lib/api-client.ts';

export type TLoginResult = { accessToken: string; refreshToken: string; user: TUser };

export function login(credentials: TLoginRequest) {
  // A 401 here means wrong credentials, not an expired session: no bearer, no refresh.
  return api.post<TLoginResult>('/auth/login', credentials, { auth: false });
}
