import { USER_MESSAGES } from '@sms/contracts/admin/admin-user';
import { ROLES, type TRole } from '@sms/contracts/auth/roles';
import type { TUser } from '@sms/contracts/auth/user';
import { OPEN_PARAMS } from '@sms/contracts/search/global-search';
import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableEmpty, TableLoading, TableRetryError } from '../../../components/data-table-states.tsx';
import { INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { SearchField } from '../../../components/search-filter-bar.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { formatDate } from '../../../lib/format-date.ts';
import { useSearchParamAction } from '../../../lib/use-search-param-action.ts';
import { useCreateUser } from '../api/create-user.ts';
import { useDeleteUser } from '../api/delete-user.ts';
import { useUsers } from '../api/list-users.ts';
import { useUpdateUser } from '../api/update-user.ts';
import { usePagedSearch } from '../hooks/use-paged-search.ts';
import { RoleBadge, StatusBadge } from './badges.tsx';
import { type TUserFormValues, UserForm } from './user-form.tsx';

type TPending = { kind: 'form'; user?: TUser } | { kind: 'delete'; user: TUser } | null;

const roleLabel = (role: string) =>
  role.replaceAll('_', ' ').replace(/\b\w/g, (first) => first.toUpperCase());

export function UsersTab() {
  const { showToast } = useToast();
  const table = usePagedSearch<TRole | ''>('role', '');
  const users = useUsers({ page: table.page, searchTerm: table.searchTerm, role: table.filter });
  const [pending, setPending] = useState<TPending>(null);
  const create = useCreateUser();
  const update = useUpdateUser();
  const remove = useDeleteUser();
  const save = pending?.kind === 'form' && pending.user ? update : create;

  function closeForm() {
    create.reset();
    update.reset();
    setPending(null);
  }

  function onSave(values: TUserFormValues) {
    if (pending?.kind !== 'form') return;
    const done = (message: string) => () => {
      showToast(message, 'success');
      closeForm();
    };
    if (pending.user) {
      update.mutate({ id: pending.user.id, body: values }, { onSuccess: done('User updated successfully!') });
    } else {
      create.mutate(
        { ...values, password: values.password ?? '' },
        { onSuccess: done('User created successfully!') },
      );
    }
  }

  function onDeleteConfirmed(user: TUser) {
    remove.mutate(user.id, {
      onSuccess: () => showToast('User deleted successfully!', 'success'),
      onError: (error) => showToast(getServerMessage(error) ?? USER_MESSAGES.formFailed, 'error'),
      onSettled: () => setPending(null),
    });
  }

  const rows = users.data?.users ?? [];
  // The top bar's search opens a user here: the table narrowed to it (search=), its form open.
  useSearchParamAction(OPEN_PARAMS.adminEdit, (value) => {
    if (!users.data) return users.isError;
    const found = rows.find((row) => row.id === Number(value));
    if (found) setPending({ kind: 'form', user: found });
    return true;
  });

  return (
    <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
      <div className="flex flex-col gap-3 border-b border-slate-200 p-4">
        <h2 className="text-lg font-semibold text-slate-900">User Management</h2>
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center">
          <SearchField
            look="form"
            label="Search users"
            placeholder="Search users..."
            value={table.search}
            onChange={table.setSearch}
          />
          <select
            aria-label="Filter by role"
            value={table.filter}
            onChange={(event) => table.setFilter(event.target.value as TRole | '')}
            className={`${INPUT_CLASSES} sm:w-48`}
          >
            <option value="">All Roles</option>
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {roleLabel(value)}
              </option>
            ))}
          </select>
          <Button onClick={() => setPending({ kind: 'form' })}>Add User</Button>
        </div>
      </div>

      {users.isPending ? (
        <TableLoading label="Loading users" />
      ) : users.isError ? (
        <TableRetryError
          message={getServerMessage(users.error) ?? 'Failed to load users'}
          onRetry={() => users.refetch()}
        />
      ) : rows.length === 0 ? (
        <TableEmpty>{USER_MESSAGES.empty}</TableEmpty>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50 text-left text-xs font-medium tracking-wide text-slate-500 uppercase">
              <tr>
                <th className="px-4 py-3">User</th>
                <th className="px-4 py-3">Role</th>
                <th className="px-4 py-3">Company</th>
                <th className="px-4 py-3">Status</th>
                <th className="px-4 py-3">Created</th>
                <th className="px-4 py-3 text-right">Actions</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map((user) => (
                <tr key={user.id} data-testid="user-row" className="hover:bg-slate-50">
                  <td className="px-4 py-3">
                    <p className="font-medium text-slate-900">{user.name}</p>
                    <p className="text-xs text-slate-500">{user.email}</p>
                  </td>
                  <td className="px-4 py-3">
                    <RoleBadge role={user.role} />
                  </td>
                  <td className="px-4 py-3 text-slate-700">{user.company?.name ?? '—'}</td>
                  <td className="px-4 py-3">
                    <StatusBadge status={user.status} />
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap text-slate-600">{formatDate(user.createdAt)}</td>
                  <td className="px-4 py-3">
                    <div className="flex justify-end gap-1">
                      <Button
                        variant="ghost"
                        size="sm"
                        onClick={() => setPending({ kind: 'form', user })}
                        aria-label={`Edit ${user.name}`}
                      >
                        Edit
                      </Button>
                      <Button
                        variant="ghost"
                        size="sm"
                        className="text-red-700"
                        onClick={() => setPending({ kind: 'delete', user })}
                        aria-label={`Delete ${user.name}`}
                      >
                        Delete
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {users.data && rows.length > 0 ? (
        <PaginationBar
          currentPage={users.data.currentPage}
          totalPages={users.data.totalPages}
          totalItems={users.data.totalItems}
          onPageChange={table.setPage}
          itemLabel="users"
          itemLabelOne="user"
        />
      ) : null}

      {pending?.kind === 'form' ? (
        <ModalDialog title={pending.user ? 'Edit User' : 'Add User'} onClose={closeForm}>
          <UserForm
            user={pending.user}
            onSubmit={onSave}
            onCancel={closeForm}
            isSubmitting={save.isPending}
            error={save.error ? (getServerMessage(save.error) ?? USER_MESSAGES.formFailed) : null}
          />
        </ModalDialog>
      ) : null}
      {pending?.kind === 'delete' ? (
        <ConfirmDialog
          title="Delete user"
          message={USER_MESSAGES.confirmDelete}
          confirmLabel="Delete"
          isPending={remove.isPending}
          onConfirm={() => onDeleteConfirmed(pending.user)}
          onCancel={() => setPending(null)}
        />
      ) : null}
    </div>
  );
}
