import { z } from 'zod';
import { ZUser } from '../auth/user.ts';
import { successEnvelope } from '../common/envelope.ts';
import { ZCreateUserForm } from './admin-user.ts';

export const ZCreateUserRequest = ZCreateUserForm;
export type TCreateUserRequest = z.input<typeof ZCreateUserRequest>;
export const ZCreateUserResponse = successEnvelope(z.object({ user: ZUser }));
