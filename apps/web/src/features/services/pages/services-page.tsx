import { PageHeader } from '../../../components/page-header.tsx';

export default function ServicesPage() {
  return (
    <PageHeader title="Services" description="Manage the short codes and keywords your subscribers join." />
  );
}
