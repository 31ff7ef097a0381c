import { PageHeader } from '../../../components/page-header.tsx';

export default function MessagesPage() {
  return <PageHeader title="Message Logs" description="Review all inbound and outbound messages." />;
}
