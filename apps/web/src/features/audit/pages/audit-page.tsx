import { PageHeader } from '../../../components/page-header.tsx';

export default function AuditPage() {
  return <PageHeader title="Audit Log" description="Review who changed what, and when." />;
}
