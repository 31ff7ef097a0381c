import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

/** No payload needed (the bearer token names the sign-in to end); a refresh token ends its sign-in too. */
export const ZLogoutRequest = z.object({ refreshToken: z.string().max(512).optional() }).nullish();
export const ZLogoutResponse = successEnvelope(z.object({ loggedOut: z.literal(true) }));
