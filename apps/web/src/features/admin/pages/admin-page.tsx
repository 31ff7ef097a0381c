import { useSearchParams } from 'react-router';
import { LockIcon } from '../../../components/icons.tsx';
import { PageHeader } from '../../../components/page-header.tsx';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { CompaniesTab } from '../components/companies-tab.tsx';
import { UsersTab } from '../components/users-tab.tsx';

const TABS = [
  { id: 'companies', label: 'Companies' },
  { id: 'users', label: 'Users' },
] as const;

export default function AdminPage() {
  const { user } = useAuth();
  // The tab lives in the address with its table's filters; another tab starts with none.
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'users' ? 'users' : 'companies';
  const setTab = (next: (typeof TABS)[number]['id']) => {
    if (next !== tab) setParams(next === 'companies' ? {} : { tab: next });
  };

  // The route guard already stops other roles; this keeps the page safe wherever it is mounted.
  if (user?.role !== 'system_admin') {
    return (
      <div className="flex flex-col items-center gap-2 py-16 text-center">
        <LockIcon className="size-8 text-red-600" />
        <h1 className="text-xl font-semibold text-slate-900">Access Denied</h1>
        <p className="text-sm text-slate-600">System administrator access required.</p>
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <PageHeader title="Admin Panel" description="Manage companies and users across the platform." />
      <div role="tablist" aria-label="Admin sections" className="flex gap-1 border-b border-slate-200">
        {TABS.map((item) => (
          <button
            key={item.id}
            type="button"
            role="tab"
            id={`admin-tab-${item.id}`}
            aria-selected={tab === item.id}
            aria-controls={`admin-panel-${item.id}`}
            onClick={() => setTab(item.id)}
            className={`-mb-px border-b-2 px-4 py-2 text-sm font-medium ${
              tab === item.id
                ? 'border-indigo-600 text-indigo-700'
                : 'border-transparent text-slate-600 hover:text-slate-900'
            }`}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`admin-panel-${tab}`} aria-labelledby={`admin-tab-${tab}`}>
        {tab === 'companies' ? <CompaniesTab key="companies" /> : <UsersTab key="users" />}
      </div>
    </div>
  );
}
