import { USER_MESSAGES } from '@sms/contracts/admin/admin-user';
import type { TRole } from '@sms/contracts/auth/roles';
import { totalPages } from '@sms/contracts/common/pagination';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { badRequest, conflict, conflictOnDuplicate, notFound } from '../../errors.ts';
import type { RequestContext } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { revokeAllSessionsOfUser } from '../auth/auth.repository.ts';
import { hashPassword } from '../auth/passwords.ts';
import { presentUser } from '../auth/present-user.ts';
import * as repo from './users.repository.ts';

export type UserForm = {
  name: string;
  email: string;
  role: TRole;
  status: string;
  companyId: number | null;
  password?: string;
};

export async function listUsers(
  deps: AppDeps,
  ctx: RequestContext,
  query: { page: number; limit: number; searchTerm?: string; role?: TRole; companyId?: number },
) {
  const { rows, totalItems } = await inActorTransaction(deps.db, ctx, (trx) =>
    repo.listUsers(
      trx,
      { searchTerm: query.searchTerm, role: query.role, companyId: query.companyId },
      { limit: query.limit, offset: (query.page - 1) * query.limit },
    ),
  );
  return {
    users: rows.map(presentUser),
    currentPage: query.page,
    totalPages: totalPages(totalItems, query.limit),
    totalItems,
  };
}

async function checkForm(trx: Parameters<typeof repo.companyExists>[0], form: UserForm, userId?: number) {
  if (form.companyId !== null && !(await repo.companyExists(trx, form.companyId)))
    throw badRequest(USER_MESSAGES.companyMissing, [`companyId: ${USER_MESSAGES.companyMissing}`]);
  if (await repo.emailTaken(trx, form.email, userId)) throw conflict(USER_MESSAGES.emailTaken);
}

/** What the audit entry keeps of a user form: never the password, only whether it changed. */
function auditedFields(form: UserForm) {
  const { password, ...rest } = form;
  return { ...rest, passwordChanged: password !== undefined };
}

export async function createUser(deps: AppDeps, ctx: RequestContext, form: UserForm & { password: string }) {
  const passwordHash = await hashPassword(form.password);
  return conflictOnDuplicate(
    inActorTransaction(deps.db, ctx, async (trx) => {
      await checkForm(trx, form);
      const userId = await repo.insertUser(trx, { ...form, passwordHash });
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'CREATE',
        entity: 'USER',
        entityId: userId,
        companyId: form.companyId,
        details: auditedFields(form),
      });
      return presentUser((await repo.findUser(trx, userId))!);
    }),
    USER_MESSAGES.emailTaken,
  );
}

export async function updateUser(deps: AppDeps, ctx: RequestContext, id: number, form: UserForm) {
  const passwordHash = form.password ? await hashPassword(form.password) : undefined;
  return conflictOnDuplicate(
    inActorTransaction(deps.db, ctx, async (trx) => {
      const before = await repo.findUser(trx, id);
      if (!before) throw notFound('User');
      const isSelf = id === ctx.actor.userId;
      if (isSelf && form.role !== 'system_admin') throw badRequest(USER_MESSAGES.cannotDemoteSelf);
      if (isSelf && form.status !== 'active') throw badRequest(USER_MESSAGES.cannotDeactivateSelf);
      const losesAdmin =
        before.role === 'system_admin' &&
        before.status === 'active' &&
        (form.role !== 'system_admin' || form.status !== 'active');
      if (losesAdmin && (await repo.countOtherActiveSystemAdmins(trx, id)) === 0)
        throw badRequest(USER_MESSAGES.lastAdmin);
      await checkForm(trx, form, id);
      await repo.updateUser(trx, id, { ...form, passwordHash });
      // A new password ends the user's other sign-ins (not the admin's own current one).
      if (passwordHash && !isSelf) await revokeAllSessionsOfUser(trx, id);
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'UPDATE',
        entity: 'USER',
        entityId: id,
        companyId: form.companyId,
        details: {
          ...auditedFields(form),
          previous: { role: before.role, status: before.status, companyId: before.company_id },
        },
      });
      return presentUser((await repo.findUser(trx, id))!);
    }),
    USER_MESSAGES.emailTaken,
  );
}

export async function deleteUser(deps: AppDeps, ctx: RequestContext, id: number) {
  if (id === ctx.actor.userId) throw badRequest(USER_MESSAGES.cannotDeleteSelf);
  await inActorTransaction(deps.db, ctx, async (trx) => {
    const user = await repo.findUser(trx, id);
    if (!user) throw notFound('User');
    if (
      user.role === 'system_admin' &&
      user.status === 'active' &&
      (await repo.countOtherActiveSystemAdmins(trx, id)) === 0
    )
      throw badRequest(USER_MESSAGES.lastAdmin);
    await repo.deleteUser(trx, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'DELETE',
      entity: 'USER',
      entityId: id,
      companyId: user.company_id,
      details: { name: user.name, email: user.email, role: user.role },
    });
  });
}
