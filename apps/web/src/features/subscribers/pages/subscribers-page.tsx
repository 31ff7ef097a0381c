import { PageHeader } from '../../../components/page-header.tsx';

export default function SubscribersPage() {
  return (
    <PageHeader title="Subscribers" description="Browse the phone numbers subscribed to your services." />
  );
}
