import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

/** The refresh token is optional: without it, every session of the caller's token family ends. */
export const ZLogoutRequest = z.object({ refreshToken: z.string().max(512).optional() }).optional();
export const ZLogoutResponse = successEnvelope(z.object({ loggedOut: z.literal(true) }));
