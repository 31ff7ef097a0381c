import { z } from 'zod';
import { ZUser } from '../auth/user.ts';
import { successEnvelope } from '../common/envelope.ts';
import { ZUpdateUserForm } from './admin-user.ts';

export const ZUpdateUserRequest = ZUpdateUserForm;
export type TUpdateUserRequest = z.input<typeof ZUpdateUserRequest>;
export const ZUpdateUserResponse = successEnvelope(z.object({ user: ZUser }));
