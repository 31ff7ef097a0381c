import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

export const ZRefreshRequest = z.object({ refreshToken: z.string().min(1).max(512) });
export type TRefreshRequest = z.infer<typeof ZRefreshRequest>;

/** The rotated refresh token comes back beside the access token; the old one is then spent. */
export const ZRefreshResponse = successEnvelope(
  z.object({ accessToken: z.string(), refreshToken: z.string() }),
);
export type TRefreshResponse = z.infer<typeof ZRefreshResponse>;
