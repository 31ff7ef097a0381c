import { ZCreateUserRequest, ZCreateUserResponse } from '@sms/contracts/admin/create-user';
import { ZDeleteUserResponse } from '@sms/contracts/admin/delete-user';
import { ZListUsersQuery, ZListUsersResponse } from '@sms/contracts/admin/list-users';
import { ZUpdateUserRequest, ZUpdateUserResponse } from '@sms/contracts/admin/update-user';
import { ZIdParam } from '@sms/contracts/common/envelope';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { contextOf } from '../../plugins/authenticate.ts';
import { guard } from '../../plugins/guards.ts';
import { createUser, deleteUser, listUsers, updateUser } from './users.service.ts';

const tags = ['admin'];

/** User administration across all companies: platform staff (system_admin) only. */
export function usersRoutes(app: ApiInstance, deps: AppDeps) {
  const preHandler = guard(deps, 'system_admin');
  const oneUser = guard(deps, 'system_admin', { idOf: 'users' });

  app.get(
    '/admin/users',
    {
      preHandler,
      schema: {
        tags,
        description: 'Users, 10 a page by default; search matches name or e-mail.',
        querystring: ZListUsersQuery,
        response: { 200: ZListUsersResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listUsers(deps, contextOf(request), request.query),
    }),
  );

  app.post(
    '/admin/users',
    {
      preHandler,
      schema: {
        tags,
        description:
          'Creates a user. Company roles need companyId; a system_admin never has one. 409 on a used e-mail.',
        body: ZCreateUserRequest,
        response: { 201: ZCreateUserResponse },
      },
    },
    async (request, reply) => {
      const user = await createUser(deps, contextOf(request), request.body);
      return reply.code(201).send({ success: true as const, data: { user } });
    },
  );

  app.put(
    '/admin/users/:id',
    {
      preHandler: oneUser,
      schema: {
        tags,
        description:
          'Saves the user form; a blank password keeps the current one. Admins cannot lock themselves out.',
        params: ZIdParam,
        body: ZUpdateUserRequest,
        response: { 200: ZUpdateUserResponse },
      },
    },
    async (request) => ({
      success: true as const,
      data: { user: await updateUser(deps, contextOf(request), request.params.id, request.body) },
    }),
  );

  app.delete(
    '/admin/users/:id',
    {
      preHandler: oneUser,
      schema: {
        tags,
        description: 'Deletes a user (not yourself, not the last active system admin).',
        params: ZIdParam,
        response: { 200: ZDeleteUserResponse },
      },
    },
    async (request) => {
      await deleteUser(deps, contextOf(request), request.params.id);
      return { success: true as const, data: { deleted: true as const } };
    },
  );
}
