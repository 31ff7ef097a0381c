import { TEMPLATE_MESSAGES, type TTemplate } from '@sms/contracts/templates/template';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button, buttonStyles } from '../../../components/button.tsx';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { TableLoading, TableTryAgainError } from '../../../components/data-table-states.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { formatDate } from '../../../lib/format-date.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { useDeleteTemplate, useTemplates } from '../api/templates.ts';
import { MergeText } from '../components/merge-text.tsx';
import { TemplateForm } from '../components/template-form.tsx';

type TDialog =
  | { kind: 'new' }
  | { kind: 'edit'; template: TTemplate }
  | { kind: 'delete'; template: TTemplate }
  | null;

/** /messages/templates: saved texts with merge fields that Create Message starts from. */
export default function TemplatesPage() {
  const { user } = useAuth();
  const withCompany = user?.role === 'system_admin';
  const canEdit = user?.role === 'system_admin' || user?.role === 'company_admin';
  const { showToast } = useToast();
  const templates = useTemplates();
  const remove = useDeleteTemplate();
  const [dialog, setDialog] = useState<TDialog>(null);
  const list = templates.data?.templates ?? [];

  const confirmDelete = async (template: TTemplate) => {
    try {
      await remove.mutateAsync(template.id);
      showToast(TEMPLATE_MESSAGES.deleted, 'success');
    } catch (error) {
      showToast(getServerMessage(error) ?? 'Failed to delete the template. Please try again.', 'error');
    }
    setDialog(null);
  };

  return (
    <div className="space-y-6">
      <PageHeader
        title="Message Templates"
        description="Saved texts that Create Message can start from. Merge fields put in each subscriber's own details."
        actions={
          <>
            <Link to="/messages" className={buttonStyles('secondary')}>
              Back to Messages
            </Link>
            {canEdit ? <Button onClick={() => setDialog({ kind: 'new' })}>New Template</Button> : null}
          </>
        }
      />

      <div className="rounded-xl border border-indigo-100 bg-indigo-50/60 px-4 py-3 text-sm text-slate-700">
        <p className="font-medium text-slate-900">Merge fields</p>
        <p className="mt-1">
          Write <code className="font-mono text-indigo-700">{'{{first_name}}'}</code> to put in a subscriber's
          field, or <code className="font-mono text-indigo-700">{'{{first_name|friend}}'}</code> to say
          “friend” to those without one. Fields come from the extra columns of a subscriber import (First
          Name, Language...) and can be edited on the subscriber.
        </p>
      </div>

      <div className="rounded-xl border border-slate-200 bg-white shadow-sm">
        {templates.isError ? (
          <TableTryAgainError message={TEMPLATE_MESSAGES.loadFailed} onRetry={() => templates.refetch()} />
        ) : templates.isPending ? (
          <TableLoading label="Loading templates" roomy />
        ) : list.length === 0 ? (
          <div className="px-4 py-16 text-center">
            <p className="text-sm font-medium text-slate-900">{TEMPLATE_MESSAGES.empty}</p>
            <p className="mt-1 text-sm text-slate-500">{TEMPLATE_MESSAGES.emptyHint}</p>
          </div>
        ) : (
          <div className="overflow-x-auto">
            <table
              className="stacked-table min-w-full divide-y divide-slate-200 text-sm"
              aria-label="Templates"
            >
              <thead className="bg-slate-50 text-left text-xs font-semibold tracking-wide text-slate-500 uppercase">
                <tr>
                  <th className="px-4 py-3">Name</th>
                  {withCompany ? <th className="px-4 py-3">Company</th> : null}
                  <th className="px-4 py-3">Text</th>
                  <th className="px-4 py-3">Updated</th>
                  {canEdit ? <th className="px-4 py-3 text-right">Actions</th> : null}
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.map((template) => (
                  <tr key={template.id} className="align-top hover:bg-slate-50">
                    <td data-label="Name" className="px-4 py-3 font-medium text-slate-900">
                      {template.name}
                    </td>
                    {withCompany ? (
                      <td data-label="Company" className="px-4 py-3 text-slate-700">
                        {template.company.name}
                      </td>
                    ) : null}
                    <td data-label="Text" className="max-w-xl px-4 py-3 text-slate-700">
                      <MergeText text={template.body} />
                    </td>
                    <td data-label="Updated" className="px-4 py-3 whitespace-nowrap text-slate-600">
                      {formatDate(template.updatedAt)}
                    </td>
                    {canEdit ? (
                      <td data-label="" className="px-4 py-3 text-right whitespace-nowrap">
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Edit ${template.name}`}
                          onClick={() => setDialog({ kind: 'edit', template })}
                        >
                          Edit
                        </Button>
                        <Button
                          variant="ghost"
                          size="sm"
                          aria-label={`Delete ${template.name}`}
                          onClick={() => setDialog({ kind: 'delete', template })}
                        >
                          Delete
                        </Button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>

      {dialog?.kind === 'new' || dialog?.kind === 'edit' ? (
        <TemplateForm
          template={dialog.kind === 'edit' ? dialog.template : null}
          withCompany={withCompany}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog?.kind === 'delete' ? (
        <ConfirmDialog
          title="Delete Template"
          message={`Delete the template ${dialog.template.name}? Messages started from it keep their text.`}
          confirmLabel="Delete"
          pendingLabel="Deleting..."
          isPending={remove.isPending}
          onConfirm={() => confirmDelete(dialog.template)}
          onCancel={() => setDialog(null)}
          tone="danger"
        />
      ) : null}
    </div>
  );
}
