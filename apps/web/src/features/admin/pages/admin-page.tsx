import { PageHeader } from '../../../components/page-header.tsx';

export default function AdminPage() {
  return <PageHeader title="Admin Panel" description="Manage companies and users across the platform." />;
}
