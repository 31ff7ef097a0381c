import { PageHeader } from '../../../components/page-header.tsx';

export default function ReportsPage() {
  return (
    <PageHeader title="Reports & Analytics" description="Visualize your messaging performance and trends." />
  );
}
