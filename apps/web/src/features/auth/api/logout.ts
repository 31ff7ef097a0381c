import { api } from '../../../lib/api-client.ts';

export function logout(refreshToken: string | null) {
  return api.post<{ loggedOut: true }>('/auth/logout', refreshToken ? { refreshToken } : {}, {
    refreshOnExpiry: false,
  });
}
